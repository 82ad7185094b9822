import {
  EXTRACTION_INSTRUCTIONS,
  type Exchange,
  type ExtractedFact,
  type ExtractionUsage,
  formatExchange,
  parseFacts,
  parseFactsFromText,
} from '@agentmem/core';
import { generateText, type LanguageModel, type LanguageModelUsage, NoObjectGeneratedError, Output } from 'ai';
import { z } from 'zod';
import { PROVIDER_OPTIONS_KEY } from '../middleware/call-options';

/** The structured answer the extraction model is asked for. */
export const extractionSchema = z.object({
  facts: z
    .array(
      z.object({
        content: z
          .string()
          .min(1)
          .describe('One self-contained fact, phrased so it makes sense without the conversation.'),
        type: z.enum(['user', 'feedback', 'project', 'reference']),
        importance: z.number().min(0).max(1).describe('0..1: how much this should shape future answers.'),
        entities: z
          .array(
            z.object({
              name: z.string().min(1).describe('As written: "Caroline", "PostgreSQL 16", "May 2023".'),
              kind: z.enum(['person', 'place', 'organization', 'product', 'project', 'event', 'title', 'date', 'name']),
            }),
          )
          .describe('The people, places, organizations, products, projects, events and dates the fact is about.'),
      }),
    )
    .describe('Durable facts worth remembering; empty when there are none.'),
});

export interface ExtractFactsOptions {
  model: LanguageModel;
  /** Replaces core's `EXTRACTION_INSTRUCTIONS`. */
  instructions?: string;
  abortSignal?: AbortSignal;
  /** Retries of the extraction call (AI SDK default 2). */
  maxRetries?: number;
}

/**
 * Asks an extraction model (any AI SDK language model) for the durable facts
 * in one exchange, as structured output. An answer that misses the schema is
 * read leniently (well-formed facts kept, the rest dropped, as core's
 * `parseFacts`); one with no list of facts at all, or a failing model, throws.
 */
export async function extractFacts(
  exchange: Exchange,
  options: ExtractFactsOptions,
): Promise<{ facts: ExtractedFact[]; usage: ExtractionUsage }> {
  try {
    const result = await generateText({
      model: options.model,
      system: options.instructions ?? EXTRACTION_INSTRUCTIONS,
      prompt: formatExchange(exchange),
      output: Output.object({ schema: extractionSchema, name: 'memories' }),
      // The extraction call is never injected into nor extracted from (also when wrapped with the middleware).
      providerOptions: { [PROVIDER_OPTIONS_KEY]: { inject: false, extract: false } },
      ...(options.abortSignal ? { abortSignal: options.abortSignal } : {}),
      ...(options.maxRetries !== undefined ? { maxRetries: options.maxRetries } : {}),
    });
    return { facts: parseFacts(result.output), usage: tokens(result.usage) };
  } catch (error) {
    if (!NoObjectGeneratedError.isInstance(error) || error.text === undefined) throw error;
    const usage = tokens(error.usage);
    try {
      return { facts: parseFactsFromText(error.text), usage };
    } catch (garbage) {
      throw Object.assign(garbage as Error, { usage }); // unusable, but paid for: the cost is still reported
    }
  }
}

function tokens(usage: LanguageModelUsage | undefined): ExtractionUsage {
  const inputTokens = usage?.inputTokens ?? 0;
  const outputTokens = usage?.outputTokens ?? 0;
  return { inputTokens, outputTokens, totalTokens: usage?.totalTokens ?? inputTokens + outputTokens };
}
