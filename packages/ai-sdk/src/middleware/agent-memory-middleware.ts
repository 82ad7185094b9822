import {
  type AgentMemory,
  assertOneOf,
  BackgroundExtractor,
  CONFLICT_RESOLUTIONS,
  type ConflictResolution,
  type ContextOptions,
  type ExtractionReport,
  invalidInput,
} from '@agentmem/core';
import type { LanguageModel } from 'ai';
import { extractFacts } from '../extraction/extract-facts';
import { type AgentMemoryCallOptions, readCallOptions, scopedMemory } from './call-options';
import type { PortableLanguageModelMiddleware, Prompt, ResponseContent, StreamPart } from './portable-middleware';
import { injectIntoPrompt, latestUserTurn } from './prompt';

export interface ExtractionSettings {
  /** Any AI SDK language model with structured output; a small, cheap one is enough. */
  model: LanguageModel;
  /**
   * Extract after every call (default `true`). With `false`, only calls that
   * pass `providerOptions.agentmem.extract: true` are extracted.
   */
  auto?: boolean;
  /** Facts below this importance are not stored; default 0.3. */
  minImportance?: number;
  /** What happens when a fact contradicts a stored memory; default: the store's `conflictResolution` (`supersede`, the newer fact wins). */
  resolution?: ConflictResolution;
  /** Replaces core's `EXTRACTION_INSTRUCTIONS`. */
  instructions?: string;
  /** Retries of the extraction call (AI SDK default 2). */
  maxRetries?: number;
}

export interface AgentMemoryMiddlewareOptions extends Omit<ContextOptions, 'filePath' | 'files'> {
  memory: AgentMemory;
  /** A file the user is working on, for every call (per call: `providerOptions.agentmem.filePath`). */
  filePath?: string;
  /** Files the user is working on, for every call (per call: `providerOptions.agentmem.files`). */
  files?: string[];
  /** Background extraction of durable facts after each response. Off unless given. */
  extraction?: ExtractionSettings;
  /** Called after each background extraction (facts, outcomes, token cost). */
  onExtraction?: (report: ExtractionReport) => void;
  /**
   * Failures that must not fail the user's call: recall during injection (the
   * call then goes on without the block) and extraction. Default: `console.warn`.
   */
  onError?: (error: unknown, info: { phase: 'inject' | 'extract' }) => void;
}

/**
 * A language model middleware for ai 6 (`LanguageModelV3Middleware`) and ai 7
 * (`LanguageModelV4Middleware`), plus a way to wait for background extraction.
 */
export interface AgentMemoryMiddleware extends PortableLanguageModelMiddleware {
  /** Resolves when every extraction started so far has finished (tests, serverless `waitUntil`). */
  idle(): Promise<void>;
  /** Cumulative cost of the extraction calls of this middleware. */
  readonly extractionUsage: Readonly<BackgroundExtractor['usage']>;
}

const OWN_OPTIONS = ['memory', 'filePath', 'files', 'extraction', 'onExtraction', 'onError'] as const;

/**
 * Gives any AI SDK model long-term memory and skills:
 * `wrapLanguageModel({ model, middleware: agentMemoryMiddleware({ memory }) })`.
 *
 * Before each call (generate and stream alike) the latest user message recalls
 * memories and activates skills; they go into one delimited block in the
 * system prompt. After a response, an optional extraction model stores the
 * durable facts of the exchange, in the background.
 */
export function agentMemoryMiddleware(options: AgentMemoryMiddlewareOptions): AgentMemoryMiddleware {
  if (!options || typeof options.memory?.contextFor !== 'function') {
    throw invalidInput(
      'agentMemoryMiddleware needs { memory }: an AgentMemory, e.g. await createAgentMemory({ backend }).',
    );
  }
  const extraction = options.extraction;
  if (extraction !== undefined) {
    if (!extraction?.model)
      throw invalidInput('extraction needs { model }: an AI SDK language model for extracting facts.');
    if (extraction.resolution !== undefined)
      assertOneOf(extraction.resolution, CONFLICT_RESOLUTIONS, 'extraction.resolution');
  }
  const contextOptions: ContextOptions = Object.fromEntries(
    Object.entries(options).filter(([key]) => !(OWN_OPTIONS as readonly string[]).includes(key)),
  );
  const onError =
    options.onError ??
    ((error: unknown, info: { phase: string }) =>
      console.warn(`[agentmem] ${info.phase} failed; the call went on:`, error));
  const report = (error: unknown, phase: 'inject' | 'extract') => {
    try {
      onError(error, { phase });
    } catch {
      // A throwing error handler must not fail the user's call either.
    }
  };

  const injected = new WeakSet<Prompt>();
  const scoped = (call: AgentMemoryCallOptions): AgentMemory => scopedMemory(options.memory, call);

  // Core's background sub-agent (shared with the LangChain adapter); this adapter supplies the AI SDK model call.
  const extractor =
    extraction &&
    new BackgroundExtractor({
      extract: (exchange) =>
        extractFacts(exchange, {
          model: extraction.model,
          instructions: extraction.instructions,
          maxRetries: extraction.maxRetries,
        }),
      minImportance: extraction.minImportance,
      resolution: extraction.resolution,
      source: 'ai-sdk-extraction',
      onExtraction: options.onExtraction,
      onError: (error) => report(error, 'extract'),
    });

  const afterResponse = (prompt: Prompt, call: AgentMemoryCallOptions, text: string, finish: unknown) => {
    if (!extractor || call.extract === false || (extraction?.auto === false && call.extract !== true)) return;
    // Complete answers only: not a tool-call step, a failed or filtered response.
    if (!['stop', 'length', 'other'].includes(unifiedFinishReason(finish))) return;
    // Retries and a middleware applied twice see the same exchange: core extracts it once.
    extractor.schedule(scoped(call), { user: latestUserTurn(prompt).text, assistant: text });
  };

  return {
    specificationVersion: 'v3',

    async transformParams({ params }) {
      if (injected.has(params.prompt)) return params; // this middleware already ran on these params
      const call = readCallOptions(params.providerOptions);
      if (call.inject === false) return params;
      const turn = latestUserTurn(params.prompt);
      const files = call.files ?? options.files;
      const filePath =
        call.filePath ?? options.filePath ?? (!files && turn.fileNames.length > 0 ? turn.fileNames : undefined);
      // The session's latest summary leads the block, so a new session of the thread starts from it.
      const sessionId = call.sessionId ?? options.sessionId;
      let block: string;
      try {
        block = (
          await scoped(call).contextFor(turn.text, {
            ...contextOptions,
            ...(filePath ? { filePath } : {}),
            ...(files ? { files } : {}),
            ...(sessionId ? { sessionId } : {}),
          })
        ).block;
      } catch (error) {
        report(error, 'inject');
        return params;
      }
      const prompt = injectIntoPrompt(params.prompt, block);
      injected.add(prompt);
      return prompt === params.prompt ? params : { ...params, prompt };
    },

    async wrapGenerate({ doGenerate, params }) {
      const result = await doGenerate();
      afterResponse(
        params.prompt,
        readCallOptions(params.providerOptions),
        textOf(result.content),
        result.finishReason,
      );
      return result;
    },

    async wrapStream({ doStream, params }) {
      const result = await doStream();
      const call = readCallOptions(params.providerOptions);
      if (!extractor || call.extract === false) return result;
      let text = '';
      let finish: unknown;
      let failed = false;
      // Chunks pass through unchanged; extraction starts once the stream has ended.
      const observe = new TransformStream<StreamPart, StreamPart>({
        transform(chunk, controller) {
          if (chunk.type === 'text-delta') text += chunk.delta ?? '';
          else if (chunk.type === 'finish') finish = chunk.finishReason;
          else if (chunk.type === 'error') failed = true;
          controller.enqueue(chunk);
        },
        flush() {
          if (!failed) afterResponse(params.prompt, call, text, finish);
        },
      });
      return { ...result, stream: result.stream.pipeThrough(observe) };
    },

    async idle() {
      await extractor?.idle();
    },

    get extractionUsage() {
      return { ...(extractor?.usage ?? { calls: 0, inputTokens: 0, outputTokens: 0, totalTokens: 0 }) };
    },
  };
}

function textOf(content: readonly ResponseContent[]): string {
  return content
    .filter((part) => part.type === 'text')
    .map((part) => part.text ?? '')
    .join('');
}

/** v3 and v4 report `{ unified, raw }`; older specifications a plain string. */
function unifiedFinishReason(finish: unknown): string {
  if (typeof finish === 'string') return finish;
  const unified = (finish as { unified?: unknown } | undefined)?.unified;
  return typeof unified === 'string' ? unified : ''; // no finish part: the response did not complete
}
