import {
  filterNamespaces,
  invalidInput,
  type LinkedKey,
  type LinkKeysOptions,
  type LinkKeysPage,
  type LinkQuery,
  linkQueryKeys,
} from '@agentmem/core';
import type { QdrantClient, Schemas } from '@qdrant/js-client-rest';
import { decodeCursor, encodeCursor, upperBound } from './cursor';
import { FIELD } from './layout';

/** Points per scroll request when ids or keys are collected. */
const SCROLL_PAGE = 1000;
/** Largest page `linkKeys` returns (never a limit on the total). */
const MAX_KEYS_PAGE = 1000;
/** Sorted id lists and key lists kept for paging (the scan cache's size). */
const MAX_CACHED = 8;

type Call = <T>(operation: string, fn: () => Promise<T>) => Promise<T>;

/**
 * Memory <-> entity links on Qdrant: each point's `links` payload field (a
 * keyword array with its own payload index). A key's count is a `count`
 * request on that index; its ids come from a scroll and are sorted here
 * (Qdrant scrolls in point-id order, not record-id order), the sorted list
 * kept for the pages after the first until the next write. Keys are listed
 * from a scroll of the scope's `links` fields, kept per listing.
 */
export class QdrantLinks {
  private ids = new Map<string, string[]>();
  private keyLists = new Map<string, { key: string; count: number }[]>();

  constructor(
    private readonly client: QdrantClient,
    private readonly collection: string,
    private readonly call: Call,
  ) {}

  /** Any write may change what a key links: the kept id lists go. */
  written(): void {
    this.ids.clear();
  }

  private scope(query: { tenant: string | null; namespaces?: readonly string[] }): Schemas['Condition'][] | null {
    const must: Schemas['Condition'][] = [];
    if (query.tenant !== null) {
      if (typeof query.tenant !== 'string') throw invalidInput('tenant must be a string or null.');
      must.push({ key: FIELD.tenant, match: { value: query.tenant } });
    }
    if (query.namespaces !== undefined) {
      const namespaces = filterNamespaces(query.namespaces);
      if (namespaces.length === 0) return null;
      must.push({ key: FIELD.namespace, match: { any: namespaces } });
    }
    return must;
  }

  async linked(query: LinkQuery): Promise<LinkedKey[]> {
    const keys = linkQueryKeys(query);
    const scope = this.scope(query);
    if (scope === null) return keys.map((key) => ({ key, count: 0, ids: [] }));
    return Promise.all(
      keys.map(async (key) => {
        const filter = { must: [...scope, { key: FIELD.links, match: { value: key } }] };
        const { count } = await this.call('count links', () =>
          this.client.count(this.collection, { filter, exact: true }),
        );
        if (count === 0 || query.limit === 0 || (query.maxCount !== undefined && count > query.maxCount)) {
          return { key, count, ids: [] };
        }
        const all = await this.sortedIds(JSON.stringify([key, query.tenant, query.namespaces ?? null]), filter);
        const start = query.after === undefined ? 0 : upperBound(all, query.after);
        return { key, count, ids: all.slice(start, start + query.limit) };
      }),
    );
  }

  /** The record ids a filter matches, sorted (kept by `cacheKey` for the next pages). */
  private async sortedIds(cacheKey: string, filter: Schemas['Filter']): Promise<string[]> {
    const kept = this.ids.get(cacheKey);
    if (kept) return kept;
    const ids: string[] = [];
    for await (const point of this.scroll(filter, [FIELD.id])) {
      const id = point.payload?.[FIELD.id];
      if (typeof id === 'string') ids.push(id);
    }
    ids.sort();
    this.ids.set(cacheKey, ids);
    while (this.ids.size > MAX_CACHED) this.ids.delete(this.ids.keys().next().value!);
    return ids;
  }

  private async *scroll(filter: Schemas['Filter'], payload: string[]) {
    let offset: Schemas['ExtendedPointId'] | null | undefined;
    do {
      const page = await this.call('scroll links', () =>
        this.client.scroll(this.collection, {
          filter,
          limit: SCROLL_PAGE,
          offset: offset ?? undefined,
          with_payload: payload,
          with_vector: false,
        }),
      );
      yield* page.points;
      offset = page.next_page_offset as Schemas['ExtendedPointId'] | null | undefined;
    } while (offset !== null && offset !== undefined);
  }

  async linkKeys(options: LinkKeysOptions): Promise<LinkKeysPage> {
    if (!options || typeof options !== 'object')
      throw invalidInput('linkKeys() takes { tenant, namespaces?, prefix?, cursor?, limit? }.');
    const limit = Math.min(MAX_KEYS_PAGE, Math.max(1, Math.floor(options.limit ?? MAX_KEYS_PAGE)));
    const scope = this.scope(options);
    if (scope === null) return { keys: [] };
    let token: string;
    let after: string | undefined;
    if (options.cursor !== undefined) ({ token, after } = decodeCursor(options.cursor));
    else token = `${Date.now().toString(36)}${Math.random().toString(36).slice(2)}`;
    let keys = this.keyLists.get(token);
    if (!keys) {
      const counts = new Map<string, number>();
      // Every point in scope with links (is_empty: the field is missing or an empty list).
      const filter = { ...(scope.length > 0 ? { must: scope } : {}), must_not: [{ is_empty: { key: FIELD.links } }] };
      for await (const point of this.scroll(filter, [FIELD.links])) {
        const links = point.payload?.[FIELD.links];
        if (!Array.isArray(links)) continue;
        for (const key of new Set(links)) if (typeof key === 'string') counts.set(key, (counts.get(key) ?? 0) + 1);
      }
      keys = [...counts]
        .map(([key, count]) => ({ key, count }))
        .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
      this.keyLists.set(token, keys);
      while (this.keyLists.size > MAX_CACHED) this.keyLists.delete(this.keyLists.keys().next().value!);
    }
    const prefix = options.prefix ?? '';
    const matching = keys.filter((k) => k.key.startsWith(prefix) && (after === undefined || k.key > after));
    const page = matching.slice(0, limit);
    if (matching.length > limit) return { keys: page, cursor: encodeCursor(token, page[page.length - 1]!.key) };
    this.keyLists.delete(token);
    return { keys: page };
  }

  close(): void {
    this.ids.clear();
    this.keyLists.clear();
  }
}
