import { type ChatMessage, SESSION_SUMMARY_INSTRUCTIONS, summaryPrompt, type TokenCounter } from '@agentmem/core';
import { generateText, type LanguageModel } from 'ai';
import { PROVIDER_OPTIONS_KEY } from '../middleware/call-options';

export { SESSION_SUMMARY_INSTRUCTIONS };

export interface SummarizeSessionOptions {
  model: LanguageModel;
  /** The transcript sent to the model is compacted (deterministic levels) to this many tokens. */
  maxTokens: number;
  countTokens?: TokenCounter;
  /** Replaces `SESSION_SUMMARY_INSTRUCTIONS`. */
  instructions?: string;
  maxRetries?: number;
}

export interface SessionSummaryUsage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
}

/**
 * One summary call: the earlier summary plus the new messages, as a
 * transcript, to any AI SDK model. The call is marked so agentmem's
 * middlewares leave it alone even when `model` is wrapped with them.
 */
export async function summarizeSession(
  input: { previousSummary?: string; messages: readonly ChatMessage[] },
  options: SummarizeSessionOptions,
): Promise<{ text: string; usage: SessionSummaryUsage }> {
  const result = await generateText({
    model: options.model,
    system: options.instructions ?? SESSION_SUMMARY_INSTRUCTIONS,
    prompt: await summaryPrompt(input, options),
    providerOptions: { [PROVIDER_OPTIONS_KEY]: { inject: false, extract: false } },
    ...(options.maxRetries !== undefined ? { maxRetries: options.maxRetries } : {}),
  });
  const inputTokens = result.usage.inputTokens ?? 0;
  const outputTokens = result.usage.outputTokens ?? 0;
  return {
    text: result.text,
    usage: { inputTokens, outputTokens, totalTokens: result.usage.totalTokens ?? inputTokens + outputTokens },
  };
}
