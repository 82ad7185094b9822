export { fnv1a } from './fnv';
export { HashingEmbedder, type HashingEmbedderOptions } from './hashing-embedder';
export { cosineSimilarity, l2Normalize } from './vector-math';
