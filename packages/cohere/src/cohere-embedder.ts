import { AgentMemoryError, type EmbedOptions, type EmbedResult, type Embedder, invalidInput } from '@agentmem/core';
import type { CohereClientV2 } from 'cohere-ai';
import { COHERE_API_URL, callCohere, type RetryPolicy } from './call-cohere';
import { type CohereClientOptions, cohereClient, hasApiKey, noApiKey } from './client';

/** Texts per embed call: Cohere's documented maximum. */
export const COHERE_MAX_TEXTS_PER_CALL = 96;

const KNOWN_DIMENSIONS: Record<string, number> = {
  'embed-v4.0': 1536,
  'embed-english-v3.0': 1024,
  'embed-multilingual-v3.0': 1024,
  'embed-english-light-v3.0': 384,
  'embed-multilingual-light-v3.0': 384,
};

export interface CohereEmbedderOptions extends CohereClientOptions {
  /** Default `embed-v4.0`. */
  model?: string;
  /** embed-v4 only: 256, 512, 1024 or 1536. */
  outputDimension?: number;
  /** Needed for models this package does not know. */
  dimension?: number;
  /** Texts per call, at most 96. */
  batchSize?: number;
  retry?: RetryPolicy;
}

/**
 * Cohere embeddings: stored memories and skills are embedded as
 * `search_document`, recall queries as `search_query`, as Cohere asks.
 */
export class CohereEmbedder implements Embedder {
  readonly specificationVersion = 'v1' as const;
  readonly id: string;
  readonly dimension: number;
  private readonly client: CohereClientV2;
  private readonly model: string;
  private readonly batchSize: number;
  /** Read when the client is made (as the key is): without one, each call fails before it is sent. */
  private readonly keyGiven: boolean;

  constructor(private readonly options: CohereEmbedderOptions = {}) {
    this.model = options.model ?? 'embed-v4.0';
    const dimension = options.outputDimension ?? options.dimension ?? KNOWN_DIMENSIONS[this.model];
    if (dimension === undefined) {
      throw invalidInput(`Unknown Cohere model "${this.model}": pass its vector size as { dimension }.`);
    }
    this.dimension = dimension;
    this.batchSize = options.batchSize ?? COHERE_MAX_TEXTS_PER_CALL;
    if (!Number.isInteger(this.batchSize) || this.batchSize < 1 || this.batchSize > COHERE_MAX_TEXTS_PER_CALL) {
      throw invalidInput(`batchSize must be 1..${COHERE_MAX_TEXTS_PER_CALL} (Cohere's per-call limit).`);
    }
    this.id = `cohere:${this.model}:${dimension}`;
    this.keyGiven = hasApiKey(options);
    this.client = cohereClient(options);
  }

  async embed(texts: readonly string[], options: EmbedOptions): Promise<EmbedResult> {
    if (!this.keyGiven) throw noApiKey();
    const embeddings: Float32Array[] = [];
    let tokens = 0;
    let calls = 0;
    // All batches complete before anything is returned, so a failure in any batch stores nothing.
    for (let start = 0; start < texts.length; start += this.batchSize) {
      const batch = texts.slice(start, start + this.batchSize);
      const response = await callCohere(
        'embed',
        () =>
          this.client.embed(
            {
              model: this.model,
              texts: [...batch],
              inputType: options.purpose === 'query' ? 'search_query' : 'search_document',
              embeddingTypes: ['float'],
              ...(this.options.outputDimension ? { outputDimension: this.options.outputDimension } : {}),
            },
            options.abortSignal ? { abortSignal: options.abortSignal } : undefined,
          ),
        this.options.retry,
        this.options.baseUrl ?? COHERE_API_URL,
        options.abortSignal,
      );
      calls++;
      const vectors = response.embeddings?.float;
      if (!vectors || vectors.length !== batch.length) {
        throw new AgentMemoryError(
          'BACKEND_ERROR',
          `Cohere returned ${vectors?.length ?? 0} embeddings for ${batch.length} texts; nothing was stored.`,
        );
      }
      for (const v of vectors) {
        if (v.length !== this.dimension) {
          throw new AgentMemoryError(
            'DIMENSION_MISMATCH',
            `Cohere model ${this.model} returned ${v.length} dimensions, expected ${this.dimension}. Set { dimension } or outputDimension to match.`,
          );
        }
        embeddings.push(Float32Array.from(v));
      }
      tokens += response.meta?.billedUnits?.inputTokens ?? 0;
    }
    return { embeddings, usage: { tokens, calls } };
  }
}

export function cohereEmbedder(options: CohereEmbedderOptions = {}): CohereEmbedder {
  return new CohereEmbedder(options);
}
