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
  /**
   * Optional, for a backend whose capabilities say `partialHits` (others ignore it and return whole
   * records): each hit's record carries only its id, namespace, tenant and these attributes (one the
   * record lacks or holds as null is left out); `text` is `''`, `payload` `{}`, and context, links and
   * vector are left out. Ids, order and scores are the whole search's. Recall ranks its dense list by
   * these and reads whole records (`get`) only for the few it returns.
   */
  partial?: { attributes: readonly string[] };
}
