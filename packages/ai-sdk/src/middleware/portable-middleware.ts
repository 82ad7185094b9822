/**
 * The language model middleware contract that both AI SDK majors accept:
 * ai 6 takes `LanguageModelV3Middleware`, ai 7 `LanguageModelV4Middleware`
 * (with any `specificationVersion`). Their call options, results and stream
 * parts differ in fields this package never reads (file data, custom parts),
 * so the middleware is typed against the shape they share, and its methods are
 * generic in the call's own types: whatever a model hands in, the same type
 * goes back out. No `@ai-sdk/provider` types are needed, so one build serves both.
 */

/** A prompt part as far as agentmem reads it; V3 and V4 parts both fit. */
export type PromptPart =
  | { readonly type: 'text' | 'reasoning'; readonly text: string }
  | { readonly type: 'file'; readonly filename?: string; readonly mediaType: string }
  | { readonly type: 'tool-call'; readonly toolCallId: string; readonly toolName: string; readonly input: unknown }
  | {
      readonly type: 'tool-result';
      readonly toolCallId: string;
      readonly toolName: string;
      readonly output: ToolResultOutput;
    }
  | { readonly type: 'tool-approval-response'; readonly approved: boolean; readonly reason?: string }
  // ai 7 parts agentmem passes through untouched.
  | { readonly type: 'custom' | 'reasoning-file' };

export type ToolResultOutput =
  | { readonly type: 'text' | 'error-text'; readonly value: string }
  | { readonly type: 'json' | 'error-json'; readonly value: unknown }
  | { readonly type: 'execution-denied'; readonly reason?: string }
  | { readonly type: 'content'; readonly value: readonly { readonly type: string; readonly text?: string }[] };

/** A prompt message (system content is a string, every other role has parts). */
export type PromptMessage =
  | { readonly role: 'system'; readonly content: string }
  | { readonly role: 'user' | 'assistant' | 'tool'; readonly content: readonly PromptPart[] };

export type Prompt = readonly PromptMessage[];

/** The call options agentmem reads: the prompt and `providerOptions.agentmem`. */
export interface CallParams {
  readonly prompt: Prompt;
  readonly providerOptions?: Record<string, unknown>;
}

/** A part of a generated response (text, tool calls; others are passed through). */
export interface ResponseContent {
  readonly type: string;
  readonly text?: string;
  readonly toolCallId?: string;
  readonly toolName?: string;
  readonly input?: unknown;
}

export interface GenerateResult {
  readonly content: readonly ResponseContent[];
  readonly finishReason: unknown;
}

/** A stream part (text deltas, tool calls, finish and error parts are read; all are passed through). */
export interface StreamPart extends ResponseContent {
  readonly delta?: string;
  readonly finishReason?: unknown;
}

export interface StreamResult {
  readonly stream: ReadableStream<StreamPart>;
}

/**
 * A language model middleware for `wrapLanguageModel` of ai 6 and ai 7 alike.
 * `specificationVersion` is `'v3'`: ai 6 requires it, ai 7 accepts any version.
 */
export interface PortableLanguageModelMiddleware {
  readonly specificationVersion: 'v3';
  transformParams<P extends CallParams>(options: {
    type: 'generate' | 'stream';
    params: P;
    model?: unknown;
  }): PromiseLike<P>;
  wrapGenerate<R extends GenerateResult>(options: {
    doGenerate: () => PromiseLike<R>;
    doStream?: unknown;
    params: CallParams;
    model?: unknown;
  }): PromiseLike<R>;
  wrapStream<S extends StreamResult>(options: {
    doStream: () => PromiseLike<S>;
    doGenerate?: unknown;
    params: CallParams;
    model?: unknown;
  }): PromiseLike<S>;
}
