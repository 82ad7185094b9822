import {
  type AgentMemory,
  type ChatMessage,
  type CompactionReport,
  compactMessages,
  invalidInput,
  SessionSummary,
  type SummaryUpdate,
  type TokenCounter,
} from '@agentmem/core';
import type { LanguageModel } from 'ai';
import { type AgentMemoryCallOptions, readCallOptions, scopedMemory } from '../middleware/call-options';
import type {
  PortableLanguageModelMiddleware,
  Prompt,
  ResponseContent,
  StreamPart,
} from '../middleware/portable-middleware';
import { fromChatMessages, responseMessage, toChatMessages } from './prompt-messages';
import { type SessionSummaryUsage, summarizeSession } from './summarize';

export interface SessionMiddlewareOptions {
  memory: AgentMemory;
  /** Any AI SDK language model, for session summaries and the auto compaction level. */
  model: LanguageModel;
  /** Prompt budget in tokens: compaction keeps each prompt under it. */
  maxTokens: number;
  /** Counts tokens of a text; default about four characters a token. */
  countTokens?: TokenCounter;
  /** The last N user turns are never compacted; default 4. */
  keepRecentTurns?: number;
  /** snip level: older texts and tool outputs longer than this are cut to head + tail; default 1200 characters. */
  snipChars?: number;
  /** collapse level: characters per folded line; default 160. */
  collapseLineChars?: number;
  /** Update the session summary after this many new user turns (default 6)... */
  everyTurns?: number;
  /** ...or this many new tokens (default 3000), whichever comes first. */
  everyTokens?: number;
  /** The session (thread) id; per call: `providerOptions.agentmem.sessionId`. Without one, only compaction runs. */
  sessionId?: string;
  /** Replaces the summary instructions (`SESSION_SUMMARY_INSTRUCTIONS`). */
  instructions?: string;
  /** After each call whose prompt was compacted: the levels that ran, tokens before and after. */
  onCompaction?: (report: CompactionReport, info: { sessionId?: string }) => void;
  /** After each summary check: updated or not, why, and the cost of the update. */
  onSummary?: (update: SummaryUpdate, info: { sessionId: string; trigger: 'threshold' | 'compaction' }) => void;
  /**
   * Failures that must not fail the user's call: the auto level's summary
   * (`compact`: the deterministic levels are used instead) and background
   * summary updates (`summary`: the previous summary stays). Default: `console.warn`.
   */
  onError?: (error: unknown, info: { phase: 'compact' | 'summary' }) => void;
}

/**
 * A language model middleware for ai 6 (`LanguageModelV3Middleware`) and ai 7
 * (`LanguageModelV4Middleware`), plus a way to wait for background summary updates.
 */
export interface SessionMiddleware extends PortableLanguageModelMiddleware {
  /** Resolves when every summary update started so far has finished (tests, serverless `waitUntil`). */
  idle(): Promise<void>;
  /** Cumulative cost of this middleware's summary calls. */
  readonly summaryUsage: Readonly<SessionSummaryUsage & { calls: number }>;
}

const nonSystem = (messages: readonly ChatMessage[]) => messages.filter((m) => m.role !== 'system');

/**
 * Sessions and compaction for any AI SDK model:
 * `wrapLanguageModel({ model, middleware: [agentMemoryMiddleware({ memory }), sessionMiddleware({ memory, model, maxTokens })] })`.
 *
 * Before each call the prompt is compacted to `maxTokens` (snip, micro,
 * collapse, then a model summary; system messages, the recent turns and tool
 * call/result pairs are kept). After each response, in the background, the
 * session summary is updated when enough happened since the last update; it
 * is stored as memory, and the memory middleware puts it first in the next
 * session's prompt.
 */
export function sessionMiddleware(options: SessionMiddlewareOptions): SessionMiddleware {
  if (!options || typeof options.memory?.contextFor !== 'function') {
    throw invalidInput(
      'sessionMiddleware needs { memory }: an AgentMemory, e.g. await createAgentMemory({ backend }).',
    );
  }
  if (!options.model) throw invalidInput('sessionMiddleware needs { model }: an AI SDK language model for summaries.');
  if (!Number.isFinite(options.maxTokens) || options.maxTokens <= 0) {
    throw invalidInput(
      `sessionMiddleware needs maxTokens, the prompt budget in tokens (a positive number), got ${options.maxTokens}.`,
    );
  }
  for (const key of ['keepRecentTurns', 'everyTurns', 'everyTokens', 'snipChars', 'collapseLineChars'] as const) {
    const value = options[key];
    if (value !== undefined && !(Number.isInteger(value) && value >= (key === 'keepRecentTurns' ? 0 : 1))) {
      throw invalidInput(
        `sessionMiddleware: ${key} must be a ${key === 'keepRecentTurns' ? 'non-negative' : 'positive'} integer, got ${value}.`,
      );
    }
  }
  const onError =
    options.onError ??
    ((error: unknown, info: { phase: string }) =>
      console.warn(`[agentmem] session ${info.phase} failed; the call went on:`, error));
  const report = (error: unknown, phase: 'compact' | 'summary') => {
    try {
      onError(error, { phase });
    } catch {
      // A throwing error handler must not fail the user's call either.
    }
  };
  const notify = <A extends unknown[]>(callback: ((...args: A) => void) | undefined, ...args: A) => {
    try {
      callback?.(...args);
    } catch (error) {
      report(error, 'summary');
    }
  };

  const usage = { calls: 0, inputTokens: 0, outputTokens: 0, totalTokens: 0 };
  const summarize = async (input: { previousSummary?: string; messages: ChatMessage[] }) => {
    const out = await summarizeSession(input, {
      model: options.model,
      maxTokens: options.maxTokens,
      countTokens: options.countTokens,
      instructions: options.instructions,
    });
    usage.calls++;
    usage.inputTokens += out.usage.inputTokens;
    usage.outputTokens += out.usage.outputTokens;
    usage.totalTokens += out.usage.totalTokens;
    return { text: out.text, usage: { tokens: out.usage.totalTokens } };
  };
  const summaryOf = (memory: AgentMemory, sessionId: string) =>
    new SessionSummary(memory, {
      sessionId,
      summarize,
      everyTurns: options.everyTurns,
      everyTokens: options.everyTokens,
      countTokens: options.countTokens,
    });

  // Updates of one session run one after another (background updates and the auto level alike).
  const queues = new Map<string, Promise<unknown>>();
  const pending = new Set<Promise<unknown>>();
  const inSession = <T>(memory: AgentMemory, sessionId: string, task: () => Promise<T>): Promise<T> => {
    const key = JSON.stringify([memory.tenant, sessionId]);
    const next = (queues.get(key) ?? Promise.resolve()).catch(() => undefined).then(task);
    queues.set(key, next);
    pending.add(next);
    void next
      .catch(() => undefined)
      .finally(() => {
        pending.delete(next);
        if (queues.get(key) === next) queues.delete(key);
      });
    return next;
  };

  /** The auto level: the old part goes into the session summary (incrementally), reused while it still covers that part. */
  const autoSummary =
    (memory: AgentMemory, sessionId: string | undefined) => async (input: { messages: ChatMessage[] }) => {
      if (!sessionId) return (await summarize({ messages: input.messages })).text;
      const old = nonSystem(input.messages);
      return inSession(memory, sessionId, async () => {
        try {
          const { text, update } = await summaryOf(memory, sessionId).summarizeOld(old);
          if (update) notify(options.onSummary, update, { sessionId, trigger: 'compaction' as const });
          return text;
        } catch (error) {
          notify(options.onSummary, { updated: false, reason: 'failed', error }, { sessionId, trigger: 'compaction' as const });
          throw error;
        }
      });
    };

  // Compacted prompt -> the prompt the application sent, so summaries see the whole conversation.
  const originals = new WeakMap<Prompt, Prompt>();

  const afterResponse = (
    prompt: Prompt,
    call: AgentMemoryCallOptions,
    content: readonly ResponseContent[],
  ) => {
    const sessionId = call.sessionId ?? options.sessionId;
    if (!sessionId || call.extract === false) return;
    const memory = scopedMemory(options.memory, call);
    const response = responseMessage(content);
    const conversation = [
      ...nonSystem(toChatMessages(originals.get(prompt) ?? prompt)),
      ...(response ? [response] : []),
    ];
    inSession(memory, sessionId, async () => {
      const update = await summaryOf(memory, sessionId).observe(conversation);
      notify(options.onSummary, update, { sessionId, trigger: 'threshold' as const });
      if (update.reason === 'failed') report(update.error, 'summary');
    }).catch((error) => report(error, 'summary'));
  };

  return {
    specificationVersion: 'v3',

    async transformParams({ params }) {
      const call = readCallOptions(params.providerOptions);
      if (call.inject === false) return params; // agentmem's own calls (summaries, extraction) and opted-out calls
      const sessionId = call.sessionId ?? options.sessionId;
      const memory = scopedMemory(options.memory, call);
      const messages = toChatMessages(params.prompt);
      let previousSummary: string | undefined;
      if (sessionId) {
        try {
          previousSummary = (await summaryOf(memory, sessionId).latest())?.content;
        } catch (error) {
          report(error, 'compact');
        }
      }
      const settings = {
        maxTokens: options.maxTokens,
        countTokens: options.countTokens,
        keepRecentTurns: options.keepRecentTurns,
        snipChars: options.snipChars,
        collapseLineChars: options.collapseLineChars,
        previousSummary,
      };
      let result: Awaited<ReturnType<typeof compactMessages>>;
      try {
        result = await compactMessages(messages, { ...settings, summarize: autoSummary(memory, sessionId) });
      } catch (error) {
        report(error, 'compact');
        result = await compactMessages(messages, settings); // snip, micro and collapse make no model call
      }
      if (result.report.level === 'none') return params;
      notify(options.onCompaction, result.report, { ...(sessionId ? { sessionId } : {}) });
      const prompt = fromChatMessages(result.messages, messages);
      originals.set(prompt, originals.get(params.prompt) ?? params.prompt);
      return { ...params, prompt };
    },

    async wrapGenerate({ doGenerate, params }) {
      const result = await doGenerate();
      afterResponse(params.prompt, readCallOptions(params.providerOptions), result.content);
      return result;
    },

    async wrapStream({ doStream, params }) {
      const result = await doStream();
      const call = readCallOptions(params.providerOptions);
      if (!(call.sessionId ?? options.sessionId) || call.extract === false) return result;
      const content: ResponseContent[] = [];
      let failed = false;
      // Chunks pass through unchanged; the summary check starts once the stream has ended.
      const observe = new TransformStream<StreamPart, StreamPart>({
        transform(chunk, controller) {
          if (chunk.type === 'text-delta') content.push({ type: 'text', text: chunk.delta ?? '' });
          else if (chunk.type === 'tool-call') content.push(chunk);
          else if (chunk.type === 'error') failed = true;
          controller.enqueue(chunk);
        },
        flush() {
          if (!failed) afterResponse(params.prompt, call, content);
        },
      });
      return { ...result, stream: result.stream.pipeThrough(observe) };
    },

    async idle() {
      while (pending.size > 0) await Promise.allSettled([...pending]);
    },

    get summaryUsage() {
      return { ...usage };
    },
  };
}
