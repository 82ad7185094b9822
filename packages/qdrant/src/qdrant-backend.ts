import {
  AgentMemoryError,
  type BackendCapabilities,
  type BackendInitOptions,
  type BackendRecord,
  fuseRrf,
  invalidInput,
  checkLinks,
  type JsonObject,
  type LinkedKey,
  type LinkKeysOptions,
  type LinkKeysPage,
  type LinkQuery,
  type MemoryBackend,
  type NamespaceCount,
  type RecordFilter,
  type RecordPatch,
  RRF_K,
  type ScanOptions,
  type ScanPage,
  type SearchHit,
  type SearchRequest,
} from '@agentmem/core';
import { QdrantClient, type Schemas } from '@qdrant/js-client-rest';
import { decodeCursor, encodeCursor, upperBound } from './cursor';
import { DEFAULT_RETRY, type RetryPolicy, withRetry } from './faults';
import { assertAttributeKey, toQdrantFilter } from './filter';
import { pointId } from './ids';
import { DENSE_VECTOR, FIELD, META_PREFIX, payloadIndexes, SPARSE_VECTOR } from './layout';
import { QdrantLinks } from './links';
import { incompatibilityWarning, qdrantClientVersion } from './server-version';
import { documentSparseVector, querySparseVector, type SparseVector } from './sparse';

export interface QdrantBackendOptions {
  /** Server url; default `http://localhost:6333`. Ignored when `client` is given. */
  url?: string;
  apiKey?: string;
  /** A configured client to use instead of one built from url/apiKey/timeoutMs. */
  client?: QdrantClient;
  /** Collection name: one collection per store. */
  collection: string;
  /** Per-request timeout of the built client; default 30 000. */
  timeoutMs?: number;
  /** Retries on timeouts, network errors, 429 and 5xx. */
  retry?: Partial<RetryPolicy>;
  /** Compare the client's version with the server's at the first init that reaches it (a warning on mismatch); default true. */
  checkCompatibility?: boolean;
  /** Points per upsert request; default 256. */
  batchSize?: number;
  /** Create the tenant payload index with `is_tenant: true` (multi-tenant deployments). Default false. */
  tenantIndex?: boolean;
  /** Collection creation settings for clusters (ignored for an existing collection). */
  shardNumber?: number;
  replicationFactor?: number;
  writeConsistencyFactor?: number;
}

/** Qdrant's RRF adds 0-based positions to k; core adds 1-based ranks to RRF_K. k = RRF_K + 1 makes them equal. */
export const QDRANT_RRF_K = RRF_K + 1;

const SCAN_PAGE = 500;
const MAX_SCAN_PAGE = 1000;
const ID_PAGE = 1000;
const LOOKUP_CHUNK = 500;
const MAX_CACHED_SCANS = 8;

type Point = {
  id: string | number;
  payload?: Schemas['Payload'] | null;
  vector?: Schemas['VectorStructOutput'] | null;
};

/**
 * MemoryBackend on one Qdrant collection: a named dense vector (Cosine), a
 * named sparse vector with server-side idf for BM25 keyword search, payload
 * indexes for the scope filters, native hybrid search via the Query API.
 */
export class QdrantBackend implements MemoryBackend {
  readonly specificationVersion = 'v1' as const;
  readonly provider = 'qdrant';
  readonly capabilities: BackendCapabilities = {
    nativeHybrid: true,
    textSearch: true,
    transactions: false,
    persistent: true,
    snapshot: false,
    readonly: false,
    links: true,
  };
  readonly collection: string;
  readonly client: QdrantClient;

  private readonly options: QdrantBackendOptions;
  private readonly retryPolicy: RetryPolicy;
  private readonly where: string;
  private dimension: number | undefined;
  private closed = false;
  private scanCache = new Map<string, string[]>();
  private readonly links: QdrantLinks;

  constructor(options: QdrantBackendOptions) {
    if (!options || typeof options.collection !== 'string' || !/^[A-Za-z0-9_.-]{1,255}$/.test(options.collection)) {
      throw invalidInput(
        'QdrantBackend needs a collection name of letters, digits, "_", "-" and "." (e.g. { collection: "agent_memory" }).',
      );
    }
    this.options = options;
    this.collection = options.collection;
    this.retryPolicy = { ...DEFAULT_RETRY };
    for (const [key, value] of Object.entries(options.retry ?? {})) {
      if (value === undefined) continue;
      if (!Number.isInteger(value) || (value as number) < 0) {
        throw invalidInput(`retry.${key} must be a non-negative integer, got ${value}.`);
      }
      (this.retryPolicy as unknown as Record<string, number>)[key] = value as number;
    }
    const url = options.url ?? 'http://localhost:6333';
    this.where = options.client
      ? `the injected client (collection ${this.collection})`
      : `${url} (collection ${this.collection})`;
    this.client =
      options.client ??
      new QdrantClient({
        url,
        apiKey: options.apiKey,
        timeout: options.timeoutMs ?? 30_000,
        // Checked in init() after the first request that reached the server (server-version.ts says why).
        checkCompatibility: false,
      });
    this.links = new QdrantLinks(this.client, this.collection, (operation, fn) => this.call(operation, fn));
  }

  // ------------------------------------------------------------ collection

  async init(options: BackendInitOptions): Promise<void> {
    this.assertOpen();
    const dimension = options?.dimension;
    if (!Number.isInteger(dimension) || dimension < 1)
      throw invalidInput(`dimension must be a positive integer, got ${dimension}.`);
    if (this.dimension !== undefined) {
      if (this.dimension !== dimension) throw this.dimensionMismatch(this.dimension, dimension);
      return;
    }
    let info = await this.collectionInfo();
    if (!info) {
      await this.createCollection(dimension);
      info = await this.collectionInfo();
      if (!info) throw new AgentMemoryError('BACKEND_ERROR', `Qdrant did not create collection "${this.collection}".`);
    }
    const stored = this.storedDimension(info);
    if (stored !== dimension) throw this.dimensionMismatch(stored, dimension);
    await this.checkServerVersion();
    const existing = info.payload_schema ?? {};
    for (const index of payloadIndexes({ tenantIndex: this.options.tenantIndex ?? false })) {
      if (existing[index.field]) continue;
      await this.call('create payload index', () =>
        this.client.createPayloadIndex(this.collection, {
          field_name: index.field,
          field_schema: index.schema,
          wait: true,
        }),
      );
    }
    this.dimension = dimension;
  }

  private async createCollection(dimension: number): Promise<void> {
    try {
      await this.call('create collection', () =>
        this.client.createCollection(this.collection, {
          vectors: { [DENSE_VECTOR]: { size: dimension, distance: 'Cosine' } },
          sparse_vectors: { [SPARSE_VECTOR]: { modifier: 'idf' } },
          shard_number: this.options.shardNumber,
          replication_factor: this.options.replicationFactor,
          write_consistency_factor: this.options.writeConsistencyFactor,
        }),
      );
    } catch (error) {
      // Another process may have created it first; the layout check that follows decides.
      if (!(await this.collectionInfo())) throw error;
    }
  }

  private async collectionInfo(): Promise<Schemas['CollectionInfo'] | undefined> {
    const { exists } = await this.call('collection exists', () => this.client.collectionExists(this.collection));
    if (!exists) return undefined;
    return this.call('get collection', () => this.client.getCollection(this.collection));
  }

  private storedDimension(info: Schemas['CollectionInfo']): number {
    const vectors = info.config.params.vectors as Record<string, { size?: number }> | undefined;
    const dense = vectors?.[DENSE_VECTOR];
    const sparse = info.config.params.sparse_vectors?.[SPARSE_VECTOR];
    if (!dense || typeof dense.size !== 'number' || !sparse) {
      throw new AgentMemoryError(
        'INVALID_INPUT',
        `Qdrant collection "${this.collection}" exists but is not an agentmem collection (it needs a dense vector "${DENSE_VECTOR}" and a sparse vector "${SPARSE_VECTOR}"). Choose another collection name.`,
        { details: { collection: this.collection } },
      );
    }
    return dense.size;
  }

  /** At the first init that reached the server: the client's version check, without its noise when down. */
  private async checkServerVersion(): Promise<void> {
    // An injected client ran its own check if its owner asked for one.
    if (this.options.client || this.options.checkCompatibility === false) return;
    try {
      const { version } = await this.client.versionInfo();
      const warning = incompatibilityWarning(qdrantClientVersion(), version);
      if (warning) console.warn(warning);
    } catch {
      // The collection calls before it succeeded: a proxy without Qdrant's root route is no reason to fail.
    }
  }

  private dimensionMismatch(stored: number, requested: number): AgentMemoryError {
    return new AgentMemoryError(
      'DIMENSION_MISMATCH',
      `Qdrant collection "${this.collection}" holds ${stored}-dimensional vectors; this embedder makes ${requested}. ` +
        `Use an embedder of dimension ${stored}, or another collection and re-embed (snapshot + merge with reembed).`,
      { details: { collection: this.collection, expected: stored, actual: requested } },
    );
  }

  // ---------------------------------------------------------------- writes

  async upsert(records: readonly BackendRecord[]): Promise<void> {
    this.assertOpen();
    // Validate everything first: a refused batch writes nothing.
    const byId = new Map<string, BackendRecord>();
    for (const r of records) {
      this.checkRecord(r);
      byId.set(r.id, r);
    }
    const unique = [...byId.values()];
    if (unique.length === 0) return;
    this.links.written();
    const size = Math.max(1, this.options.batchSize ?? 256);
    const written: string[] = [];
    for (let i = 0; i < unique.length; i += size) {
      const chunk = unique.slice(i, i + size);
      try {
        await this.call('upsert', () =>
          this.client.upsert(this.collection, { wait: true, points: chunk.map(toPoint) }),
        );
      } catch (error) {
        const unconfirmed = chunk.map((r) => r.id);
        const notAttempted = unique.slice(i + size).map((r) => r.id);
        const e = error as AgentMemoryError;
        throw new AgentMemoryError(
          e.code,
          `${e.message} ${written.length} of ${unique.length} records were written before the failure (details.written); ` +
            `${unconfirmed.length} may or may not have been (details.unconfirmed); ${notAttempted.length} were not sent (details.notAttempted). ` +
            `Upserts are idempotent: send the unconfirmed and unsent records again.`,
          { cause: error, details: { ...e.details, written: [...written], unconfirmed, notAttempted } },
        );
      }
      for (const r of chunk) written.push(r.id);
    }
  }

  async patch(patches: readonly RecordPatch[]): Promise<number> {
    this.assertOpen();
    for (const p of patches) {
      if (typeof p?.id !== 'string') throw invalidInput('Every patch needs a string id.');
      if (p.attributes) checkAttributes(p.attributes);
    }
    const ids = [...new Set(patches.map((p) => p.id))];
    const current = new Map<string, Record<string, unknown>>();
    for (const point of await this.retrieve(ids, [FIELD.id, FIELD.attributes], false)) {
      const id = point.payload?.[FIELD.id];
      if (typeof id === 'string') current.set(id, { ...((point.payload?.[FIELD.attributes] as object) ?? {}) });
    }
    // Attributes are merged here and written whole, so the result never depends on nested-key merge rules.
    const next = new Map<string, Record<string, unknown>>();
    let changed = 0;
    for (const p of patches) {
      const attrs = current.get(p.id);
      if (!attrs) continue;
      changed++;
      const update = next.get(p.id) ?? {};
      if (p.attributes) {
        Object.assign(attrs, p.attributes);
        update[FIELD.attributes] = attrs;
      }
      if (p.payload) update[FIELD.payload] = structuredClone(p.payload);
      next.set(p.id, update);
    }
    const operations: Schemas['UpdateOperation'][] = [];
    for (const [id, payload] of next) {
      if (Object.keys(payload).length > 0) operations.push({ set_payload: { payload, points: [pointId(id)] } });
    }
    for (let i = 0; i < operations.length; i += LOOKUP_CHUNK) {
      const chunk = operations.slice(i, i + LOOKUP_CHUNK);
      await this.call('patch', () => this.client.batchUpdate(this.collection, { wait: true, operations: chunk }));
    }
    return changed;
  }

  async delete(ids: readonly string[]): Promise<number> {
    this.assertOpen();
    const found = (await this.retrieve([...new Set(ids)], false, false)).map((p) => p.id);
    this.links.written();
    for (let i = 0; i < found.length; i += LOOKUP_CHUNK) {
      const points = found.slice(i, i + LOOKUP_CHUNK);
      await this.call('delete', () => this.client.delete(this.collection, { wait: true, points }));
    }
    return found.length;
  }

  // ----------------------------------------------------------------- reads

  async get(
    ids: readonly string[],
    options: { tenant?: string | null; withVectors?: boolean } = {},
  ): Promise<BackendRecord[]> {
    this.assertOpen();
    const points = await this.retrieve([...new Set(ids)], true, options.withVectors ?? true);
    const out: BackendRecord[] = [];
    for (const p of points) {
      const r = toRecord(p, options.withVectors ?? true);
      if (!r) continue;
      if (typeof options.tenant === 'string' && r.tenant !== options.tenant) continue;
      out.push(r);
    }
    return out;
  }

  private async retrieve(
    ids: readonly string[],
    withPayload: boolean | string[],
    withVectors: boolean,
  ): Promise<Point[]> {
    const out: Point[] = [];
    for (let i = 0; i < ids.length; i += LOOKUP_CHUNK) {
      const chunk = ids.slice(i, i + LOOKUP_CHUNK).map(pointId);
      const points = await this.call('retrieve', () =>
        this.client.retrieve(this.collection, {
          ids: chunk,
          with_payload: withPayload,
          with_vector: withVectors ? [DENSE_VECTOR] : false,
        }),
      );
      out.push(...(points as Point[]));
    }
    return out;
  }

  /**
   * Id order is the contract, but Qdrant scrolls in point-id (UUID) order and
   * `order_by` takes numeric fields only. So a scan first collects the ids of
   * every matching point (ids only, paged with next_page_offset), sorts them,
   * then fetches each page by id with the filter re-applied. The sorted id list
   * is kept for the scan's later pages; a cursor from another instance still
   * works (it names the last id returned).
   */
  async scan(options: ScanOptions): Promise<ScanPage> {
    this.assertOpen();
    const filter = toQdrantFilter(options.filter);
    if (filter === null) return { records: [] };
    const limit = Math.min(MAX_SCAN_PAGE, Math.max(1, Math.floor(options.limit ?? SCAN_PAGE)));
    let token: string;
    let after: string | undefined;
    if (options.cursor !== undefined) ({ token, after } = decodeCursor(options.cursor));
    else token = `${Date.now().toString(36)}${Math.random().toString(36).slice(2)}`;
    let ids = this.scanCache.get(token);
    if (!ids) {
      ids = await this.matchingIds(filter);
      this.scanCache.set(token, ids);
      while (this.scanCache.size > MAX_CACHED_SCANS) this.scanCache.delete(this.scanCache.keys().next().value!);
    }
    const start = after === undefined ? 0 : upperBound(ids, after);
    const pageIds = ids.slice(start, start + limit);
    const records: BackendRecord[] = [];
    if (pageIds.length > 0) {
      const result = await this.call('scroll', () =>
        this.client.scroll(this.collection, {
          filter: { must: [{ has_id: pageIds.map(pointId) }, ...(isEmptyFilter(filter) ? [] : [filter])] },
          limit: pageIds.length,
          with_payload: true,
          with_vector: options.withVectors ? [DENSE_VECTOR] : false,
        }),
      );
      for (const p of result.points as Point[]) {
        const r = toRecord(p, options.withVectors ?? false);
        if (r) records.push(r);
      }
      records.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    }
    if (start + limit < ids.length) return { records, cursor: encodeCursor(token, pageIds[pageIds.length - 1]!) };
    this.scanCache.delete(token);
    return { records };
  }

  private async matchingIds(filter: Schemas['Filter']): Promise<string[]> {
    const ids: string[] = [];
    let offset: Schemas['ExtendedPointId'] | null | undefined;
    do {
      const page = await this.call('scroll', () =>
        this.client.scroll(this.collection, {
          filter,
          limit: ID_PAGE,
          offset: offset ?? undefined,
          with_payload: [FIELD.id],
          with_vector: false,
        }),
      );
      for (const p of page.points) {
        const id = p.payload?.[FIELD.id];
        if (typeof id === 'string') ids.push(id);
      }
      offset = page.next_page_offset as Schemas['ExtendedPointId'] | null | undefined;
    } while (offset !== null && offset !== undefined);
    return ids.sort();
  }

  async search(request: SearchRequest): Promise<SearchHit[]> {
    this.assertOpen();
    const k = Math.max(0, Math.floor(request.k));
    if (k === 0) return [];
    const filter = toQdrantFilter(request.filter);
    if (request.mode !== 'keyword') {
      if (!request.vector) throw invalidInput(`A ${request.mode} search needs \`vector\`.`);
      this.checkVector(request.vector);
    }
    if (request.mode !== 'dense' && request.text === undefined)
      throw invalidInput(`A ${request.mode} search needs \`text\`.`);
    if (filter === null) return [];
    const dense = request.vector ? { query: Array.from(request.vector), using: DENSE_VECTOR } : undefined;
    const sparse = request.text !== undefined ? querySparseVector(request.text) : undefined;
    const keyword = sparse ? { query: sparse as Schemas['SparseVector'], using: SPARSE_VECTOR } : undefined;
    const base = { filter, limit: k, with_vector: false };

    if (request.mode === 'dense') {
      const res = await this.call('dense search', () =>
        this.client.query(this.collection, { ...dense!, ...base, with_payload: true }),
      );
      return toHits(res.points as Point[]);
    }
    if (request.mode === 'keyword') {
      if (!keyword) return [];
      const res = await this.call('keyword search', () =>
        this.client.query(this.collection, { ...keyword, ...base, with_payload: true }),
      );
      return toHits(keywordMatches(res.points as Point[]));
    }

    const weights = request.weights ?? { dense: 1, keyword: 1 };
    // Weak dense hits take no part in the fusion (core's minDenseSimilarity).
    const threshold = request.minDenseScore === undefined ? {} : { score_threshold: request.minDenseScore };
    if (keyword && weights.dense === weights.keyword && weights.dense > 0) {
      // Server-side fusion; the two plain lists ride in the same batch (ids only) to report each signal.
      const lite = { ...base, with_payload: [FIELD.id] };
      const [fused, d, kw] = await this.call('hybrid search', () =>
        this.client.queryBatch(this.collection, {
          searches: [
            {
              // Qdrant merges the top-level filter into every prefetch; each carries it too, so that
              // the k candidates of each list are the caller's scope on any server version.
              prefetch: [
                { ...dense!, ...threshold, filter, limit: k },
                { ...keyword, filter, limit: k },
              ],
              query: { rrf: { k: QDRANT_RRF_K } },
              ...base,
              with_payload: true,
            },
            { ...dense!, ...threshold, ...lite },
            { ...keyword, ...lite },
          ],
        }),
      );
      const denseRanks = signalRanks(d!.points as Point[]);
      const keywordRanks = signalRanks(keywordMatches(kw!.points as Point[]));
      const hits: SearchHit[] = [];
      for (const p of fused!.points as (Point & { score: number })[]) {
        const record = toRecord(p, false);
        if (!record) continue;
        const hit: SearchHit = { record, score: p.score * weights.dense };
        const ds = denseRanks.get(record.id);
        const ks = keywordRanks.get(record.id);
        if (ds) hit.dense = ds;
        if (ks) hit.keyword = ks;
        hits.push(hit);
      }
      return hits.sort((a, b) => b.score - a.score || (a.record.id < b.record.id ? -1 : 1));
    }
    // Unequal weights: Qdrant's weighted RRF is a different formula from core's, so fuse here.
    const searches: Schemas['QueryRequest'][] = [{ ...dense!, ...threshold, ...base, with_payload: true }];
    if (keyword) searches.push({ ...keyword, ...base, with_payload: true });
    const [d, kw] = await this.call('hybrid search', () => this.client.queryBatch(this.collection, { searches }));
    return fuseRrf(toHits(d!.points as Point[]), kw ? toHits(keywordMatches(kw.points as Point[])) : [], weights, k);
  }

  async linked(query: LinkQuery): Promise<LinkedKey[]> {
    this.assertOpen();
    return this.links.linked(query);
  }

  async linkKeys(options: LinkKeysOptions): Promise<LinkKeysPage> {
    this.assertOpen();
    return this.links.linkKeys(options);
  }

  async count(filter: RecordFilter): Promise<number> {
    this.assertOpen();
    const f = toQdrantFilter(filter);
    if (f === null) return 0;
    const res = await this.call('count', () => this.client.count(this.collection, { filter: f, exact: true }));
    return res.count;
  }

  async namespaces(options: { tenant?: string | null } = {}): Promise<NamespaceCount[]> {
    this.assertOpen();
    const tenants =
      typeof options.tenant === 'string'
        ? [options.tenant]
        : (await this.facet(FIELD.tenant, {})).map((h) => String(h.value));
    const out: NamespaceCount[] = [];
    for (const tenant of tenants) {
      const hits = await this.facet(FIELD.namespace, { must: [{ key: FIELD.tenant, match: { value: tenant } }] });
      for (const h of hits) out.push({ namespace: String(h.value), tenant, count: h.count });
    }
    return out.sort((a, b) =>
      a.tenant === b.tenant ? a.namespace.localeCompare(b.namespace) : a.tenant.localeCompare(b.tenant),
    );
  }

  /** Every distinct value: the facet limit is set to the number of matching points, which bounds them. */
  private async facet(key: string, filter: Schemas['Filter']): Promise<Schemas['FacetValueHit'][]> {
    const { count } = await this.call('count', () => this.client.count(this.collection, { filter, exact: true }));
    if (count === 0) return [];
    const res = await this.call('facet', () =>
      this.client.facet(this.collection, { key, filter, limit: count, exact: true }),
    );
    return res.hits.filter((h) => h.count > 0);
  }

  // ------------------------------------------------------------------ meta

  async getMeta(key: string): Promise<string | undefined> {
    this.assertOpen();
    const info = await this.collectionInfo();
    const value = (info?.config.metadata as Record<string, unknown> | null | undefined)?.[META_PREFIX + key];
    return typeof value === 'string' ? value : undefined;
  }

  /** Stored in the collection's own metadata (merged key by key), so it travels with the collection. */
  async setMeta(key: string, value: string): Promise<void> {
    this.assertOpen();
    if (typeof key !== 'string' || key === '' || typeof value !== 'string')
      throw invalidInput('setMeta needs a key and a string value.');
    if (this.dimension === undefined && !(await this.collectionInfo())) {
      throw invalidInput('Call init({ dimension }) before setMeta: the Qdrant collection does not exist yet.');
    }
    await this.call('update collection metadata', () =>
      this.client.updateCollection(this.collection, { metadata: { [META_PREFIX + key]: value } }),
    );
    // A server without collection metadata ignores the field and answers ok; the store's embedder
    // check would then pass silently, so read it back (a few times: another peer may apply it later).
    let kept = false;
    for (let attempt = 0; attempt < 3 && !kept; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 200));
      kept = (await this.getMeta(key)) === value;
    }
    if (!kept) {
      throw new AgentMemoryError(
        'BACKEND_ERROR',
        `Qdrant at ${this.where} did not keep collection metadata "${key}"; agentmem needs a Qdrant server with collection metadata (v1.19 is tested). Upgrade the server.`,
        { details: { collection: this.collection, key } },
      );
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.scanCache.clear();
    this.links.close();
  }

  // --------------------------------------------------------------- helpers

  private call<T>(operation: string, fn: () => Promise<T>): Promise<T> {
    return withRetry(operation, this.retryPolicy, this.where, fn);
  }

  private assertOpen(): void {
    if (this.closed) throw new AgentMemoryError('CLOSED', 'This backend is closed; open a new one.');
  }

  private checkRecord(r: BackendRecord): void {
    if (typeof r?.id !== 'string' || r.id.length === 0) throw invalidInput('Every record needs a non-empty string id.');
    if (typeof r.namespace !== 'string' || typeof r.tenant !== 'string' || typeof r.text !== 'string') {
      throw invalidInput(`Record ${r.id} needs string namespace, tenant and text.`);
    }
    if (r.context !== undefined && typeof r.context !== 'string')
      throw invalidInput(`Record ${r.id}: context must be a string when given.`);
    checkLinks(r.id, r.links);
    checkAttributes(r.attributes ?? {});
    if (r.vector) this.checkVector(r.vector);
  }

  private checkVector(v: Float32Array): void {
    if (this.dimension === undefined)
      throw invalidInput('Call init({ dimension }) before writing or searching vectors.');
    if (v.length !== this.dimension) {
      throw new AgentMemoryError(
        'DIMENSION_MISMATCH',
        `Vector has ${v.length} dimensions but Qdrant collection "${this.collection}" holds ${this.dimension}. Use the embedder the store was built with, or re-embed into a new collection.`,
        { details: { expected: this.dimension, actual: v.length } },
      );
    }
    for (const x of v) if (!Number.isFinite(x)) throw invalidInput('Vectors must hold finite numbers.');
  }
}

function isEmptyFilter(f: Schemas['Filter']): boolean {
  return !f.must && !f.should && !f.must_not && !f.min_should;
}

function checkAttributes(attributes: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(attributes)) {
    assertAttributeKey(key);
    if (value !== null && !['string', 'number', 'boolean'].includes(typeof value)) {
      throw invalidInput(`Attribute "${key}" must be a string, number, boolean or null.`);
    }
  }
}

function toPoint(r: BackendRecord): Schemas['PointStruct'] {
  const vector: Record<string, number[] | SparseVector> = {};
  if (r.vector) vector[DENSE_VECTOR] = Array.from(r.vector);
  const sparse = documentSparseVector(r.text, r.context);
  if (sparse) vector[SPARSE_VECTOR] = sparse;
  return {
    id: pointId(r.id),
    vector,
    payload: {
      [FIELD.id]: r.id,
      [FIELD.namespace]: r.namespace,
      [FIELD.tenant]: r.tenant,
      [FIELD.text]: r.text,
      ...(r.context ? { [FIELD.context]: r.context } : {}),
      ...(r.links && r.links.length > 0 ? { [FIELD.links]: [...new Set(r.links)] } : {}),
      [FIELD.attributes]: { ...r.attributes },
      [FIELD.payload]: r.payload,
    },
  };
}

function toRecord(p: Point, withVector: boolean): BackendRecord | undefined {
  const payload = p.payload;
  if (!payload || typeof payload[FIELD.id] !== 'string') return undefined; // not an agentmem point
  const record: BackendRecord = {
    id: payload[FIELD.id] as string,
    namespace: String(payload[FIELD.namespace] ?? ''),
    tenant: String(payload[FIELD.tenant] ?? ''),
    text: String(payload[FIELD.text] ?? ''),
    attributes: { ...((payload[FIELD.attributes] as BackendRecord['attributes']) ?? {}) },
    payload: (payload[FIELD.payload] as JsonObject) ?? {},
  };
  if (typeof payload[FIELD.context] === 'string' && payload[FIELD.context] !== '') {
    record.context = payload[FIELD.context] as string;
  }
  const links = payload[FIELD.links];
  if (Array.isArray(links) && links.length > 0) record.links = links.filter((k): k is string => typeof k === 'string');
  if (withVector && p.vector && !Array.isArray(p.vector)) {
    const dense = (p.vector as Record<string, unknown>)[DENSE_VECTOR];
    if (Array.isArray(dense)) record.vector = Float32Array.from(dense as number[]);
  }
  return record;
}

function toHits(points: Point[]): SearchHit[] {
  const hits: SearchHit[] = [];
  for (const p of points as (Point & { score: number })[]) {
    const record = toRecord(p, false);
    if (record) hits.push({ record, score: p.score });
  }
  return hits;
}

/** A sparse hit with no positive score shares no term with the query. */
function keywordMatches<T extends Point>(points: T[]): T[] {
  return points.filter((p) => (p as T & { score: number }).score > 0);
}

function signalRanks(points: Point[]): Map<string, { rank: number; score: number }> {
  const ranks = new Map<string, { rank: number; score: number }>();
  points.forEach((p, i) => {
    const id = p.payload?.[FIELD.id];
    if (typeof id === 'string') ranks.set(id, { rank: i + 1, score: (p as Point & { score: number }).score });
  });
  return ranks;
}
