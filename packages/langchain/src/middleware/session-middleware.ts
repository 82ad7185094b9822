import {
  type AgentMemory,
  type ChatMessage,
  type CompactionReport,
  compactMessages,
  invalidInput,
  SESSION_SUMMARY_INSTRUCTIONS,
  SessionSummary,
  type SummaryUpdate,
  summaryPrompt,
  type TokenCounter,
} from '@agentmem/core';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { type BaseMessage, HumanMessage, SystemMessage } from '@langchain/core/messages';
import { createMiddleware } from './langchain-peer';
import { fromChatMessages, textOf, toChatMessages } from './messages';
import { defaultScope, RunContexts, type ScopeResolver, threadOf } from './scope';

export interface SessionMiddlewareOptions {
  memory: AgentMemory;
  /** Model for summaries and for the auto compaction level. */
  model: BaseChatModel;
  /** Prompt budget in tokens; compaction keeps the prompt under it. */
  maxTokens: number;
  countTokens?: TokenCounter;
  keepRecentTurns?: number;
  /** Session id; default the run's `context.sessionId` / `context.threadId`, else `configurable.thread_id`. */
  sessionId?: string;
  everyTurns?: number;
  everyTokens?: number;
  scope?: ScopeResolver;
  onCompaction?: (report: CompactionReport) => void;
  onSummary?: (update: SummaryUpdate) => void;
  onError?: (error: unknown) => void;
}

/**
 * Sessions and compaction for `createAgent`: before each model call the
 * prompt is compacted to `maxTokens` (snip, micro, collapse, then a model
 * summary), and after the run the session summary is updated when enough
 * happened, so the next session of the thread starts from it.
 */
export function sessionMiddleware(options: SessionMiddlewareOptions) {
  if (!options?.memory || !options.model || !(options.maxTokens > 0)) {
    throw invalidInput('sessionMiddleware needs { memory, model, maxTokens }.');
  }
  const scope = options.scope ?? defaultScope;
  // Failures never fail the run; without onError they are logged.
  const reportError = (error: unknown) => {
    try {
      (
        options.onError ?? ((e) => console.warn('[agentmem] session summary or compaction failed; the run went on:', e))
      )(error);
    } catch {
      // a throwing handler must not fail the run
    }
  };
  const summarize = async (input: { previousSummary?: string; messages: ChatMessage[] }) => {
    const answer = await options.model.invoke([
      new SystemMessage(SESSION_SUMMARY_INSTRUCTIONS),
      new HumanMessage(await summaryPrompt(input, { maxTokens: options.maxTokens, countTokens: options.countTokens })),
    ]);
    return { text: textOf(answer), usage: { tokens: answer.usage_metadata?.total_tokens } };
  };
  const runs = new RunContexts();
  const sessionFor = (context: unknown, configurable: unknown) => {
    const id = options.sessionId ?? threadOf(context, configurable);
    if (!id) return undefined;
    return new SessionSummary(options.memory.withScope(scope(context)), {
      sessionId: id,
      summarize,
      everyTurns: options.everyTurns,
      everyTokens: options.everyTokens,
      countTokens: options.countTokens,
      onError: reportError,
    });
  };

  return createMiddleware({
    name: 'AgentMemorySessionMiddleware',
    wrapModelCall: async (request, handler) => {
      const configurable = (request.runtime as { configurable?: unknown })?.configurable;
      runs.remember(request.messages as BaseMessage[], request.runtime?.context);
      const session = sessionFor(request.runtime?.context, configurable);
      const previous = await session?.latest().catch((error) => {
        reportError(error);
        return undefined;
      });
      // The system prompt (with the memory block of an outer agentMemoryMiddleware) counts against the
      // budget; as the leading system message compaction never changes it, and it goes back as is.
      const system = request.systemMessage ? toChatMessages([request.systemMessage]) : [];
      const chat = [...system, ...toChatMessages(request.messages as BaseMessage[])];
      const settings = {
        maxTokens: options.maxTokens,
        countTokens: options.countTokens,
        keepRecentTurns: options.keepRecentTurns,
        previousSummary: previous?.content,
      };
      let result: Awaited<ReturnType<typeof compactMessages>>;
      try {
        result = await compactMessages(chat, {
          ...settings,
          // The auto level's summary becomes the session summary (reused while it still covers the old part).
          summarize: async (input) => {
            if (!session) return (await summarize(input)).text;
            const { text, update } = await session.summarizeOld(input.messages);
            if (update) options.onSummary?.(update);
            return text;
          },
        });
      } catch (error) {
        reportError(error);
        result = await compactMessages(chat, settings); // snip, micro and collapse make no model call
      }
      const { messages, report } = result;
      if (report.level !== 'none') options.onCompaction?.(report);
      return handler({
        ...request,
        messages: fromChatMessages(messages.slice(system.length)) as typeof request.messages,
      });
    },
    afterAgent: async (state, runtime) => {
      const messages = ((state as { messages?: BaseMessage[] }).messages ?? []) as BaseMessage[];
      const session = sessionFor(runs.take(messages), (runtime as { configurable?: unknown })?.configurable);
      if (!session) return undefined;
      try {
        const update = await session.observe(toChatMessages(messages));
        options.onSummary?.(update);
      } catch (error) {
        reportError(error); // the run's answer stands; the previous summary stays
      }
      return undefined;
    },
  });
}
