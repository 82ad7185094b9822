export { BinaryIndex, encodeSigns, isSparse } from './binary-index';
export { Bm25Index } from './bm25';
export { InMemoryBackend } from './in-memory';
export { matchesCondition, matchesFilter } from './match-filter';
export { fusedRelevance, fuseRrf, RRF_K } from './rrf';
