export {
  APPROXIMATE_POOL,
  approximateCandidates,
  BinaryIndex,
  BinaryPartError,
  encodeRescoring,
  encodeSigns,
  isSparse,
  type SavedCode,
  type SavedCodes,
} from './binary-index';
export { BM25_B, BM25_B_CONTEXT, BM25_K1, Bm25Index, CONTEXT_WEIGHT } from './bm25';
export { InMemoryBackend, type InMemoryBackendOptions } from './in-memory';
export {
  KEYWORD_INDEX_COLUMNS,
  type KeywordDocument,
  KeywordIndex,
  type KeywordMatch,
  KeywordPartError,
} from './keyword-index';
export { LinkIndex } from './link-index';
export { matchesCondition, matchesFilter } from './match-filter';
export { fusedRelevance, fuseKeywordFirst, fuseRrf, RRF_K } from './rrf';
export {
  checkAttributeValue,
  checkFilterValue,
  checkLinks,
  filterNamespaces,
  filterValues,
  linkQueryKeys,
  RANGE_OPERATORS,
  searchRequestK,
} from './backend-input';
