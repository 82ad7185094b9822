import {
  type AgentMemory,
  BackgroundExtractor,
  type ConflictResolution,
  type ContextOptions,
  type ExtractionReport,
  invalidInput,
} from '@agentmem/core';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { BaseMessage } from '@langchain/core/messages';
import { createMiddleware } from './langchain-peer';
import { chatModelExtractor } from './chat-model-extractor';
import { isAi, isHuman, latestHumanText, textOf, withContextBlock } from './messages';
import { defaultScope, RunContexts, type ScopeResolver, threadOf } from './scope';

export interface AgentMemoryMiddlewareOptions extends Omit<ContextOptions, 'filePath' | 'files'> {
  memory: AgentMemory;
  /** A file the user works on (skills by glob); or per run via `context.filePath`. A run's `context.sessionId` (or `threadId`) puts that session's summary first. */
  filePath?: string;
  /** Files the user works on (skills by glob); or per run via `context.files`. */
  files?: string[];
  /** Reads tenant/branch/agent from the run's context; default: `userId`/`tenant`, `branch`, `agentId`. */
  scope?: ScopeResolver;
  /** Background extraction of durable facts after each run (off unless given). */
  extraction?: {
    model: BaseChatModel;
    instructions?: string;
    minImportance?: number;
    resolution?: ConflictResolution;
  };
  onExtraction?: (report: ExtractionReport) => void;
  /** Failures of injection or extraction; they never fail the agent's run. */
  onError?: (error: unknown, info: { phase: 'inject' | 'extract' }) => void;
}

/**
 * `createAgent({ middleware: [agentMemoryMiddleware({ memory })] })`: every
 * model call gets the active skills and relevant memories in its system
 * prompt (the same block the AI SDK adapter injects), and after the run an
 * optional extraction model stores durable facts through the conflict check.
 */
export function agentMemoryMiddleware(options: AgentMemoryMiddlewareOptions) {
  if (!options?.memory) throw invalidInput('agentMemoryMiddleware needs { memory }, e.g. from createSqliteMemory().');
  const {
    memory,
    filePath,
    files,
    scope = defaultScope,
    extraction,
    onExtraction,
    onError,
    ...contextOptions
  } = options;
  const report = (error: unknown, phase: 'inject' | 'extract') => {
    try {
      (onError ?? ((e, i) => console.warn(`[agentmem] ${i.phase} failed; the run went on:`, e)))(error, { phase });
    } catch {
      // a throwing handler must not fail the run
    }
  };
  const extractor = extraction
    ? new BackgroundExtractor({
        extract: chatModelExtractor(extraction.model, extraction.instructions),
        minImportance: extraction.minImportance,
        resolution: extraction.resolution,
        source: 'langchain-extraction',
        onExtraction,
        onError: (e) => report(e, 'extract'),
      })
    : undefined;

  const runs = new RunContexts();
  const middleware = createMiddleware({
    name: 'AgentMemoryMiddleware',
    wrapModelCall: async (request, handler) => {
      const message = latestHumanText(request.messages as BaseMessage[]);
      if (!message.trim()) return handler(request);
      const context = request.runtime?.context as Record<string, unknown> | undefined;
      if (extractor) runs.remember(request.messages as BaseMessage[], context);
      try {
        const view = memory.withScope(scope(context));
        const file = typeof context?.filePath === 'string' ? context.filePath : filePath;
        const list = Array.isArray(context?.files)
          ? (context.files as unknown[]).filter((f): f is string => typeof f === 'string')
          : files;
        const session = threadOf(context, (request.runtime as { configurable?: unknown })?.configurable);
        const { block } = await view.contextFor(message, {
          ...contextOptions,
          ...(file ? { filePath: file } : {}),
          ...(list ? { files: list } : {}),
          ...(typeof session === 'string' ? { sessionId: session } : {}),
        });
        return handler({ ...request, systemMessage: withContextBlock(request.systemMessage, block) });
      } catch (error) {
        report(error, 'inject');
        return handler(request);
      }
    },
    afterAgent: async (state) => {
      if (!extractor) return undefined;
      const messages = (state as { messages?: BaseMessage[] }).messages ?? [];
      const context = runs.take(messages);
      const lastAi = [...messages].reverse().find(isAi);
      const user = latestHumanText(messages);
      const assistant = lastAi ? textOf(lastAi) : '';
      if (user && assistant && messages.some(isHuman)) {
        extractor.schedule(memory.withScope(scope(context)), { user, assistant });
      }
      return undefined;
    },
  });
  return Object.assign(middleware, {
    /** Resolves when background extraction has finished (tests, serverless handlers). */
    idle: () => extractor?.idle() ?? Promise.resolve(),
    /** Token cost of extraction so far. */
    extractionUsage: () => ({ ...(extractor?.usage ?? { calls: 0, inputTokens: 0, outputTokens: 0, totalTokens: 0 }) }),
  });
}
