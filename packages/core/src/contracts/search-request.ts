import type { RecordFilter } from './record-filter';

export type SearchMode = 'dense' | 'keyword' | 'hybrid';

export interface SearchRequest {
  mode: SearchMode;
  filter: RecordFilter;
  k: number;
  /** Required for `dense` and `hybrid`. */
  vector?: Float32Array;
  /** Required for `keyword` and `hybrid`. */
  text?: string;
  /** Weights of each list in a native hybrid fusion (reciprocal rank fusion). */
  weights?: { dense: number; keyword: number };
  /**
   * Native hybrid: dense hits below this cosine similarity take no part in
   * the fusion (core drops them itself when it fuses).
   */
  minDenseScore?: number;
}
