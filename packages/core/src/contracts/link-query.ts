/** Options of the optional `MemoryBackend.linked`: the records linked to some entity keys. */
export interface LinkQuery {
  /** A string limits to that tenant; `null` means every tenant. */
  tenant: string | null;
  /** Limit to these namespaces; omitted means all. An empty list matches nothing. */
  namespaces?: readonly string[];
  /** Entity keys (`BackendRecord.links` values). */
  keys: readonly string[];
  /** Record ids returned per key at most (in id order); `count` still counts them all. 0: counts only. */
  limit: number;
  /** Only ids after this one (paging through one key's records). */
  after?: string;
  /**
   * A key linked to more records than this returns its count and no ids
   * (recall skips such common entities, so no backend reads their ids).
   */
  maxCount?: number;
}

/** One key of a `linked` answer: how many records in scope link to it, and the first `limit` of their ids. */
export interface LinkedKey {
  key: string;
  count: number;
  ids: string[];
}
