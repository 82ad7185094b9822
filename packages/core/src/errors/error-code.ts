/** Stable error codes: match on these, never on messages. */
export type AgentMemoryErrorCode =
  | 'INVALID_INPUT'
  | 'NOT_FOUND'
  | 'EMBEDDER_MISMATCH'
  | 'DIMENSION_MISMATCH'
  | 'NOT_A_DATABASE'
  | 'CORRUPT_SNAPSHOT'
  /** An empty file, or a file (or SQLite database) that agentmem never wrote. */
  | 'NOT_A_SNAPSHOT'
  | 'UNSUPPORTED_FORMAT'
  | 'CAPABILITY_MISSING'
  | 'MISSING_DEPENDENCY'
  | 'BACKEND_UNAVAILABLE'
  | 'BACKEND_ERROR'
  | 'TIMEOUT'
  | 'AUTHENTICATION'
  | 'RATE_LIMITED'
  | 'CONFLICT'
  | 'CLOSED'
  /** The caller cancelled the operation through its AbortSignal; never retried. */
  | 'ABORTED';
