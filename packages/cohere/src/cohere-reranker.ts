import type { RerankDocument, RerankResult, Reranker } from '@agentmem/core';
import type { CohereClientV2 } from 'cohere-ai';
import { COHERE_API_URL, callCohere, type RetryPolicy } from './call-cohere';
import { type CohereClientOptions, cohereClient, hasApiKey, noApiKey } from './client';

export interface CohereRerankerOptions extends CohereClientOptions {
  /** Default `rerank-v3.5`. */
  model?: string;
  /** Default number of results to keep. */
  topN?: number;
  retry?: RetryPolicy;
}

/** Cohere's rerank endpoint as the optional second stage of recall. */
export class CohereReranker implements Reranker {
  readonly specificationVersion = 'v1' as const;
  readonly id: string;
  private readonly client: CohereClientV2;
  private readonly model: string;
  private readonly keyGiven: boolean;

  constructor(private readonly options: CohereRerankerOptions = {}) {
    this.model = options.model ?? 'rerank-v3.5';
    this.id = `cohere:${this.model}`;
    this.keyGiven = hasApiKey(options);
    this.client = cohereClient(options);
  }

  async rerank(
    query: string,
    documents: readonly RerankDocument[],
    options: { topN?: number; abortSignal?: AbortSignal } = {},
  ): Promise<RerankResult> {
    if (documents.length === 0) return { ranking: [] };
    if (!this.keyGiven) throw noApiKey();
    const topN = Math.min(documents.length, options.topN ?? this.options.topN ?? documents.length);
    const response = await callCohere(
      'rerank',
      () =>
        this.client.rerank(
          { model: this.model, query, documents: documents.map((d) => d.text), topN },
          options.abortSignal ? { abortSignal: options.abortSignal } : undefined,
        ),
      this.options.retry,
      this.options.baseUrl ?? COHERE_API_URL,
      options.abortSignal,
    );
    return {
      ranking: response.results.map((r) => ({ index: r.index, score: r.relevanceScore })),
      usage: { calls: 1 },
    };
  }
}

export function cohereReranker(options: CohereRerankerOptions = {}): CohereReranker {
  return new CohereReranker(options);
}
