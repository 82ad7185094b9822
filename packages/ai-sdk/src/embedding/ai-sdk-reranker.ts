import { abortedError, type RerankDocument, type Reranker, type RerankResult } from '@agentmem/core';
import { type RerankingModel, rerank } from 'ai';

/** The core `Reranker` over any AI SDK reranking model (`rerank`). */
export function aiSdkReranker(model: RerankingModel, options: { id?: string; maxRetries?: number } = {}): Reranker {
  const id =
    options.id ?? (typeof model === 'string' ? `ai-sdk:gateway:${model}` : `ai-sdk:${model.provider}:${model.modelId}`);
  return {
    specificationVersion: 'v1',
    id,
    async rerank(query: string, documents: readonly RerankDocument[], rerankOptions = {}): Promise<RerankResult> {
      if (documents.length === 0) return { ranking: [], usage: { calls: 0 } };
      const signal = rerankOptions.abortSignal;
      const result = await rerank({
        model,
        query,
        documents: documents.map((d) => d.text),
        ...(rerankOptions.topN !== undefined ? { topN: rerankOptions.topN } : {}),
        ...(signal ? { abortSignal: signal } : {}),
        ...(options.maxRetries !== undefined ? { maxRetries: options.maxRetries } : {}),
      }).catch((error: unknown) => {
        throw signal?.aborted ? abortedError(`Reranking with ${id}`, signal, error) : error;
      });
      return { ranking: result.ranking.map((r) => ({ index: r.originalIndex, score: r.score })), usage: { calls: 1 } };
    },
  };
}
