export { LangChainEmbedder, type LangChainEmbedderOptions, langchainEmbedder } from './langchain-embedder';
