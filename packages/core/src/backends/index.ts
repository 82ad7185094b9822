export { APPROXIMATE_POOL, approximateCandidates, BinaryIndex, encodeSigns, isSparse } from './binary-index';
export { Bm25Index } from './bm25';
export { InMemoryBackend, type InMemoryBackendOptions } from './in-memory';
export { matchesCondition, matchesFilter } from './match-filter';
export { fusedRelevance, fuseRrf, RRF_K } from './rrf';
