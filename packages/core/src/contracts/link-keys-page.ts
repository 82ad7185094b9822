/** Options of the optional `MemoryBackend.linkKeys`: every entity key in scope, with its record count. */
export interface LinkKeysOptions {
  tenant: string | null;
  namespaces?: readonly string[];
  /** Only keys starting with this. */
  prefix?: string;
  /** Opaque, from the previous page. */
  cursor?: string;
  /** Page size; backends may cap it, never the total. */
  limit?: number;
}

/** One page of entity keys in key order. `cursor` is absent on the last page. */
export interface LinkKeysPage {
  keys: { key: string; count: number }[];
  cursor?: string;
}
