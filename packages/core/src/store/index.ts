export { KIND, type MemoryStatus, memoryAttributes, memoryToRecord, recordToMemory, statusOf } from './codec';
export {
  META_EMBEDDER_DIMENSION,
  META_EMBEDDER_ID,
  type MemoryStoreOptions,
  type MemoryUpdate,
  MemoryStore,
  type RecallOptions,
  type RecallResult,
  type SimilarMemory,
} from './memory-store';
export { DEFAULT_MAX_CONTENT_LENGTH, DEFAULT_MAX_QUERY_LENGTH, validateQuery } from './validate';
