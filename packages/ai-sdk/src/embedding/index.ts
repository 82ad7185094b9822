export { type AiSdkEmbedderOptions, aiSdkEmbedder, createAiSdkEmbedder } from './ai-sdk-embedder';
export { aiSdkReranker } from './ai-sdk-reranker';
