export { createQdrantMemory, type CreateQdrantMemoryOptions } from './create-qdrant-memory';
export { DEFAULT_RETRY, type RetryPolicy } from './faults';
export { toQdrantFilter } from './filter';
export { pointId, RECORD_ID_NAMESPACE, uuidv5 } from './ids';
export { DENSE_VECTOR, FIELD, META_PREFIX, SPARSE_VECTOR } from './layout';
export { QDRANT_RRF_K, QdrantBackend, type QdrantBackendOptions } from './qdrant-backend';
export { BM25_AVG_TERMS, BM25_B, BM25_K1, documentSparseVector, querySparseVector, type SparseVector } from './sparse';
