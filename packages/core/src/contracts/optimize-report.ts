/**
 * What the optional `MemoryBackend.optimize` did. Index names are the backend's (SQLite: `keyword`,
 * the keyword index; `dense`, the binary index of dense vectors; `sparse`, the index of sparse
 * vectors, e.g. the default HashingEmbedder's).
 */
export interface OptimizeReport {
  /** The backend's provider (`sqlite`). */
  provider: string;
  /** Slices of an index build left unfinished that this call built (SQLite: 65,536 rows each); 0: none was pending. */
  slicesBuilt: number;
  /** Indexes saved by this call, so that no change is logged since their save. */
  indexesSaved: string[];
  /** Indexes whose save was already current: nothing to do. */
  indexesCurrent: string[];
  /** The write-ahead log was copied into the file and truncated (false: another process was reading it; run again later). */
  walCheckpointed: boolean;
  /** Whether the storage was rewritten compactly (`vacuum: true`). */
  vacuumed: boolean;
  /** Bytes the storage took before and after (SQLite: the file and its write-ahead log). */
  bytesBefore: number;
  bytesAfter: number;
  /** Wall time of the call. */
  ms: number;
}
