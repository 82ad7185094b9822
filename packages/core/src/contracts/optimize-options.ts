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
  /**
   * Called as each step starts and after each slice of an index build (on a 1M-memory store the call
   * takes minutes: this is how a caller shows it going). An error it throws ends the call, the steps
   * done kept, like an abort.
   */
  onProgress?: (progress: OptimizeProgress) => void;
}

/** What `optimize` is doing, passed to `OptimizeOptions.onProgress`. */
export interface OptimizeProgress {
  /**
   * `dense-save` / `keyword-save`: a save of that index starts; `slice`: a slice of an unfinished
   * index build was just built (SQLite: 65,536 rows); `vacuum`: VACUUM starts (the slow one);
   * `checkpoint`: the write-ahead log's checkpoint starts (the last step).
   */
  step: 'dense-save' | 'slice' | 'keyword-save' | 'vacuum' | 'checkpoint';
  /** Slices this call has built so far. */
  slicesBuilt: number;
  /** With `slice`: vectors in the build so far, and vectors in the store (what it is building towards). */
  vectorsBuilt?: number;
  vectorsTotal?: number;
  /** Wall time since the call started. */
  ms: number;
}
