import {
  AgentMemoryError,
  abortedError,
  type Embedder,
  type EmbedOptions,
  type EmbedResult,
  invalidInput,
} from '@agentmem/core';
import { type EmbeddingModel, embedMany } from 'ai';

type ProviderOptions = NonNullable<Parameters<typeof embedMany>[0]['providerOptions']>;

export interface AiSdkEmbedderOptions {
  /** Vector length the model returns (e.g. 1536 for OpenAI text-embedding-3-small). */
  dimension: number;
  /**
   * Stable id recorded in the store; default `ai-sdk:<provider>:<modelId>`.
   * Give your own when provider options change the vectors (e.g. a reduced dimension).
   */
  id?: string;
  /** Provider options per purpose, for models that embed queries and documents differently. */
  providerOptions?: { document?: ProviderOptions; query?: ProviderOptions };
  /** Parallel requests when a batch exceeds the model's `maxEmbeddingsPerCall`; AI SDK default Infinity. */
  maxParallelCalls?: number;
  /** Retries per request (AI SDK default 2). */
  maxRetries?: number;
  /** Cosine similarity at or above which two memories conflict (model dependent); default 0.8. */
  conflictThreshold?: number;
}

/**
 * The core `Embedder` over any AI SDK embedding model, through `embedMany`
 * (which splits batches by the model's `maxEmbeddingsPerCall`).
 */
export function aiSdkEmbedder(model: EmbeddingModel, options: AiSdkEmbedderOptions): Embedder {
  const { dimension } = options ?? {};
  if (!Number.isInteger(dimension) || dimension <= 0) {
    throw invalidInput(
      'aiSdkEmbedder needs { dimension }: the vector length of the model. Or use await createAiSdkEmbedder(model) to probe it once.',
    );
  }
  const id = options.id ?? modelId(model);
  return {
    specificationVersion: 'v1',
    id,
    dimension,
    ...(options.conflictThreshold !== undefined ? { conflictThreshold: options.conflictThreshold } : {}),
    async embed(texts: readonly string[], embedOptions: EmbedOptions): Promise<EmbedResult> {
      if (texts.length === 0) return { embeddings: [], usage: { tokens: 0, calls: 0 } };
      const providerOptions = options.providerOptions?.[embedOptions.purpose];
      const signal = embedOptions.abortSignal;
      const result = await embedMany({
        model,
        values: [...texts],
        ...(providerOptions ? { providerOptions } : {}),
        ...(signal ? { abortSignal: signal } : {}),
        ...(options.maxParallelCalls !== undefined ? { maxParallelCalls: options.maxParallelCalls } : {}),
        ...(options.maxRetries !== undefined ? { maxRetries: options.maxRetries } : {}),
      }).catch((error: unknown) => {
        // Whatever the provider threw for it (an AbortError, a RetryError), a cancel is the caller's: ABORTED.
        throw signal?.aborted ? abortedError(`Embedding with ${id}`, signal, error) : error;
      });
      const embeddings = result.embeddings.map((vector, i) => {
        if (vector.length !== dimension) {
          throw new AgentMemoryError(
            'DIMENSION_MISMATCH',
            `Embedding model ${id} returned ${vector.length} dimensions for text ${i}, not the configured ${dimension}. ` +
              'Set { dimension } to what the model returns (or use createAiSdkEmbedder to probe it).',
            { details: { id, expected: dimension, actual: vector.length } },
          );
        }
        return Float32Array.from(vector);
      });
      return { embeddings, usage: { tokens: result.usage.tokens ?? 0, calls: result.responses?.length ?? 1 } };
    },
  };
}

/** Like `aiSdkEmbedder`, but finds the dimension by embedding one probe text (one model call). */
export async function createAiSdkEmbedder(
  model: EmbeddingModel,
  options: Omit<AiSdkEmbedderOptions, 'dimension'> & { dimension?: number } = {},
): Promise<Embedder> {
  if (options.dimension !== undefined) return aiSdkEmbedder(model, { ...options, dimension: options.dimension });
  const providerOptions = options.providerOptions?.document;
  const probe = await embedMany({
    model,
    values: ['dimension probe'],
    ...(providerOptions ? { providerOptions } : {}),
  });
  const dimension = probe.embeddings[0]?.length ?? 0;
  if (dimension === 0) throw invalidInput(`Embedding model ${modelId(model)} returned no vector for a probe text.`);
  return aiSdkEmbedder(model, { ...options, dimension });
}

function modelId(model: EmbeddingModel): string {
  if (typeof model === 'string') return `ai-sdk:gateway:${model}`;
  return `ai-sdk:${model.provider}:${model.modelId}`;
}
