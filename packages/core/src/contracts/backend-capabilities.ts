/** What a backend can do natively; core checks these and fills in the rest. */
export interface BackendCapabilities {
  /** Dense + keyword fused in one query (`search({ mode: 'hybrid' })`). */
  nativeHybrid: boolean;
  /** `search({ mode: 'keyword' })` with BM25-style relevance. */
  textSearch: boolean;
  /** `transaction(fn)` is all-or-nothing. */
  transactions: boolean;
  /** Data survives `close()` and a new instance on the same location. */
  persistent: boolean;
  /** The backend can write a point-in-time copy of itself (`snapshotTo`). */
  snapshot: boolean;
  /** Opened read-only: every write is refused, so core never writes (recall does not reinforce). */
  readonly: boolean;
  /**
   * Records' `links` are stored, returned and indexed: `linked` and `linkKeys`
   * answer from an index, without a search (entity evidence in recall, the
   * entity API). Omitted: false.
   */
  links?: boolean;
  /**
   * Dense search honours `SearchRequest.partial`: hits carry id, scope and the named attributes only,
   * read without the rest of the row (a warm recall read ~60 whole rows to return 10). Omitted: false.
   */
  partialHits?: boolean;
}
