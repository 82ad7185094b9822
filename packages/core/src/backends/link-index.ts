import type { LinkedKey, LinkKeysOptions, LinkKeysPage, LinkQuery } from '../contracts';

/** Largest page `keys` returns when the caller asks for more (never a limit on the total). */
const MAX_KEYS_PAGE = 1000;

/** The scope a link lives in: tenant and namespace. */
const scopeOf = (tenant: string, namespace: string) => `${tenant}\u0000${namespace}`;

/** Where `id` goes in a sorted array (binary search). */
function insertionPoint(ids: readonly string[], id: string): number {
  let lo = 0;
  let hi = ids.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ids[mid]! < id) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Memory <-> entity links in process memory: per entity key and scope
 * (tenant, namespace), the linked record ids kept sorted, so that `linked`
 * answers a key's count and its first ids without visiting its other records,
 * and per record its keys, so that an overwrite or delete drops its links.
 * The in-memory backend's index; the other backends keep the same in tables.
 */
export class LinkIndex {
  private readonly byKey = new Map<string, Map<string, string[]>>();
  private readonly byRecord = new Map<string, { scope: string; keys: readonly string[] }>();

  /** Replaces the links of a record (none: removes them). */
  set(id: string, tenant: string, namespace: string, keys: readonly string[] | undefined): void {
    this.remove(id);
    if (!keys || keys.length === 0) return;
    const scope = scopeOf(tenant, namespace);
    const unique = [...new Set(keys)];
    this.byRecord.set(id, { scope, keys: unique });
    for (const key of unique) {
      const scopes = this.byKey.get(key) ?? new Map<string, string[]>();
      this.byKey.set(key, scopes);
      const ids = scopes.get(scope) ?? [];
      scopes.set(scope, ids);
      ids.splice(insertionPoint(ids, id), 0, id);
    }
  }

  remove(id: string): void {
    const entry = this.byRecord.get(id);
    if (!entry) return;
    this.byRecord.delete(id);
    for (const key of entry.keys) {
      const scopes = this.byKey.get(key);
      const ids = scopes?.get(entry.scope);
      if (!scopes || !ids) continue;
      const at = insertionPoint(ids, id);
      if (ids[at] === id) ids.splice(at, 1);
      if (ids.length === 0) scopes.delete(entry.scope);
      if (scopes.size === 0) this.byKey.delete(key);
    }
  }

  /** The id lists of a key in the query's scope. */
  private lists(key: string, tenant: string | null, namespaces: readonly string[] | undefined): string[][] {
    const scopes = this.byKey.get(key);
    if (!scopes) return [];
    if (tenant !== null && namespaces) {
      return namespaces.flatMap((n) => {
        const ids = scopes.get(scopeOf(tenant, n));
        return ids ? [ids] : [];
      });
    }
    const wanted = namespaces ? new Set(namespaces) : undefined;
    const out: string[][] = [];
    for (const [scope, ids] of scopes) {
      const [t, n] = scope.split('\u0000') as [string, string];
      if ((tenant === null || t === tenant) && (!wanted || wanted.has(n))) out.push(ids);
    }
    return out;
  }

  linked(query: LinkQuery): LinkedKey[] {
    const limit = Math.max(0, Math.floor(query.limit));
    return [...new Set(query.keys)].map((key) => {
      const lists = this.lists(key, query.tenant, query.namespaces);
      let count = 0;
      for (const ids of lists) count += ids.length;
      const ids: string[] = [];
      if (limit > 0 && (query.maxCount === undefined || count <= query.maxCount)) {
        // The first `limit` ids after the cursor, merged from the sorted lists of each scope.
        const firsts = lists.map((l) =>
          l.slice(query.after === undefined ? 0 : insertionPoint(l, `${query.after}\u0000`)).slice(0, limit),
        );
        ids.push(...firsts.flat().sort().slice(0, limit));
      }
      return { key, count, ids };
    });
  }

  keys(options: LinkKeysOptions): LinkKeysPage {
    const limit = Math.min(MAX_KEYS_PAGE, Math.max(1, options.limit ?? MAX_KEYS_PAGE));
    const prefix = options.prefix ?? '';
    const matching: { key: string; count: number }[] = [];
    for (const key of this.byKey.keys()) {
      if (!key.startsWith(prefix) || (options.cursor !== undefined && key <= options.cursor)) continue;
      let count = 0;
      for (const ids of this.lists(key, options.tenant, options.namespaces)) count += ids.length;
      if (count > 0) matching.push({ key, count });
    }
    matching.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const keys = matching.slice(0, limit);
    return matching.length > limit ? { keys, cursor: keys[keys.length - 1]!.key } : { keys };
  }
}
