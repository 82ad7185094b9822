export { fnv1a } from './fnv';
export { HashingEmbedder, type HashingEmbedderOptions } from './hashing-embedder';
export { cosineSimilarity, l2Normalize } from './vector-math';
export { WordVectorEmbedder, type WordVectorEmbedderOptions } from './word-vector-embedder';
export { type LoadWordVectorsOptions, loadWordVectors, type WordVectorSource, WordVectors } from './word-vectors';
