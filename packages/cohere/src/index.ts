export { callCohere, type RetryPolicy } from './call-cohere';
export type { CohereClientOptions } from './client';
export { COHERE_MAX_TEXTS_PER_CALL, CohereEmbedder, type CohereEmbedderOptions, cohereEmbedder } from './cohere-embedder';
export { CohereReranker, type CohereRerankerOptions, cohereReranker } from './cohere-reranker';
