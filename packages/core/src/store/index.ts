export { conversationInputs, DEFAULT_CONVERSATION_WINDOW, spokenDate, turnLine } from './conversation-inputs';
export {
  createEntryId,
  HISTORY_PENDING,
  impliedCreate,
  isHistoryPending,
  KIND,
  type MemoryStatus,
  memoryAttributes,
  memoryToRecord,
  recordToMemory,
  statusOf,
} from './codec';
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
export {
  DEFAULT_WRITE_LIMITS,
  MAX_AGENT_ID_LENGTH,
  MAX_ID_LENGTH,
  MAX_LABEL_LENGTH,
  MAX_NAMESPACE_LENGTH,
  MAX_SESSION_ID_LENGTH,
  MAX_TENANT_LENGTH,
  resolveWriteLimits,
  type WriteLimits,
} from './limits';
export {
  type StoredMemoryDefaults,
  type StoredMemoryFields,
  storedMemoryFromRecord,
  toStoredMemory,
  validateStoredFields,
} from './stored-memory';
export {
  DEFAULT_MAX_CONTENT_LENGTH,
  DEFAULT_MAX_QUERY_LENGTH,
  type PolicyRule,
  validateAgentId,
  validateMetadata,
  validateQuery,
  validateSessionId,
  validateTags,
  validateTenant,
} from './validate';
