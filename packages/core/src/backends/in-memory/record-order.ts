import type { AttributeValue, BackendRecord, RecordFilter } from '../../contracts';

/**
 * Attributes the store looks records up by, one value among many: `contentHash` (dedup on every
 * write) and `memoryId` (a memory's history). Indexed so that such a scan reads the records it
 * names, not every record of the store (SQLite indexes the same two columns).
 */
const LOOKUP_KEYS = ['contentHash', 'memoryId'] as const;

/**
 * The ids of one attribute value: the id itself while it is the only one (most content hashes are
 * one memory's: a set of its own for each cost an allocation a write), a set once there are more.
 */
type Ids = string | Set<string>;

/**
 * Which records a scan reads, in id order: the ids of one attribute value (see LOOKUP_KEYS), or
 * every id, sorted once and kept until a record is added or dropped, so paging through a store
 * costs one sort, not one per page.
 */
export class RecordOrder {
  private readonly byValue = new Map<string, Map<AttributeValue, Ids>>(LOOKUP_KEYS.map((key) => [key, new Map()]));
  private sorted: string[] | undefined;

  /** A record is stored (new, or in place of `before`). */
  put(record: BackendRecord, before: BackendRecord | undefined): void {
    if (!before) this.sorted = undefined;
    this.reindex(record.id, before?.attributes, record.attributes);
  }

  /** A record is gone. */
  drop(record: BackendRecord): void {
    this.sorted = undefined;
    this.reindex(record.id, record.attributes, undefined);
  }

  /** A record's attributes changed (a patch). */
  patched(id: string, before: BackendRecord['attributes'], after: BackendRecord['attributes']): void {
    this.reindex(id, before, after);
  }

  /**
   * Ids that can match the filter, ascending, from `start` on (the first after `cursor`): the ids of
   * the looked-up values when the filter names values of an indexed attribute, else every id.
   */
  candidates(
    ids: () => Iterable<string>,
    filter: RecordFilter,
    cursor: string | undefined,
  ): { ids: readonly string[]; start: number } {
    const looked = this.lookup(filter);
    if (looked) return { ids: looked.sort(byId), start: cursor === undefined ? 0 : firstAfter(looked, cursor) };
    this.sorted ??= [...ids()].sort(byId);
    return { ids: this.sorted, start: cursor === undefined ? 0 : firstAfter(this.sorted, cursor) };
  }

  private lookup(filter: RecordFilter): string[] | undefined {
    const where = filter.where;
    if (!where) return undefined;
    for (const key of LOOKUP_KEYS) {
      const condition = where[key];
      if (condition === undefined) continue;
      let values: readonly AttributeValue[] | undefined;
      if (typeof condition === 'string' || typeof condition === 'number' || typeof condition === 'boolean') {
        values = [condition];
      } else if (condition !== null && typeof condition === 'object' && 'in' in condition) values = condition.in;
      // A missing attribute equals null: such records are not indexed, so null is looked up the long way.
      if (!values || values.includes(null)) continue;
      const index = this.byValue.get(key)!;
      const out = new Set<string>();
      for (const value of values) {
        const ids = index.get(value);
        if (typeof ids === 'string') out.add(ids);
        else if (ids) for (const id of ids) out.add(id);
      }
      return [...out];
    }
    return undefined;
  }

  private reindex(
    id: string,
    before: BackendRecord['attributes'] | undefined,
    after: BackendRecord['attributes'] | undefined,
  ): void {
    for (const key of LOOKUP_KEYS) {
      const old = before?.[key] ?? null;
      const next = after?.[key] ?? null;
      if (old === next) continue;
      const index = this.byValue.get(key)!;
      if (old !== null) {
        const ids = index.get(old);
        if (ids === id) index.delete(old);
        else if (typeof ids === 'object') {
          ids.delete(id);
          if (ids.size === 0) index.delete(old);
        }
      }
      if (next !== null) {
        const ids = index.get(next);
        if (ids === undefined) index.set(next, id);
        else if (typeof ids === 'object') ids.add(id);
        else if (ids !== id) index.set(next, new Set([ids, id]));
      }
    }
  }
}

function byId(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Index of the first id greater than `cursor` in an ascending list. */
function firstAfter(sorted: readonly string[], cursor: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! <= cursor) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
