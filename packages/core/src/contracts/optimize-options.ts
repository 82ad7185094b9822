/** Options of the optional `MemoryBackend.optimize` (a maintenance step: `agentmem optimize`). */
export interface OptimizeOptions {
  /**
   * Also rewrite the storage compactly (SQLite: `VACUUM`), giving back the space deleted rows left.
   * Slow on a large store (it copies it whole: the file's size again on disk meanwhile) and it holds
   * the write lock throughout. Default false.
   */
  vacuum?: boolean;
  /**
   * Checked between steps (SQLite: between slices of an index build, each its own transaction):
   * an aborted signal ends the call with code ABORTED, the work already done kept.
   */
  abortSignal?: AbortSignal;
}
