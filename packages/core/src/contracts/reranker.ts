import type { Usage } from './usage';

export interface RerankDocument {
  id: string;
  text: string;
}

export interface RerankResult {
  /** Best first: index into the given documents and its relevance score. */
  ranking: { index: number; score: number }[];
  usage?: Usage;
}

/** An optional stage after recall that reorders a candidate pool (v1). */
export interface Reranker {
  readonly specificationVersion: 'v1';
  readonly id: string;
  rerank(
    query: string,
    documents: readonly RerankDocument[],
    options?: { topN?: number; abortSignal?: AbortSignal },
  ): Promise<RerankResult>;
}
