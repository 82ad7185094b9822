import type {
  BackendCapabilities,
  BackendInitOptions,
  BackendRecord,
  LinkedKey,
  LinkKeysOptions,
  LinkKeysPage,
  LinkQuery,
  MemoryBackend,
  NamespaceCount,
  RecordFilter,
  RecordPatch,
  ScanOptions,
  ScanPage,
  SearchHit,
  SearchRequest,
} from '../../contracts';
import { AgentMemoryError, invalidInput } from '../../errors';
import { cosineSimilarity } from '../../embedding';
import { checkLinks, linkQueryKeys } from '../backend-input';
import { approximateCandidates, BinaryIndex, isSparse } from '../binary-index';
import { KeywordIndex } from '../keyword-index';
import { LinkIndex } from '../link-index';
import { matchesFilter } from '../match-filter';
import { RecordOrder } from './record-order';

const DEFAULT_PAGE = 500;

interface UndoLog {
  /** Where this transaction's changes begin in the journal. */
  start: number;
  meta: Map<string, string | undefined>;
}

export interface InMemoryBackendOptions {
  /**
   * `approximate` (default): dense search picks candidates by the Hamming
   * distance of sign-bit codes and ranks them by exact cosine, as the SQLite
   * backend does (sparse, lexical vectors are always searched exactly).
   * `exact`: every vector of the scope is compared.
   */
  denseSearch?: 'approximate' | 'exact';
}

/**
 * The reference backend: everything in process memory, BM25F keyword
 * relevance from an inverted index, dense search over a binary index with exact rescoring (or exact).
 * Good for tests, demos and short-lived agents.
 */
export class InMemoryBackend implements MemoryBackend {
  readonly specificationVersion = 'v1' as const;
  readonly provider = 'memory';
  readonly capabilities: BackendCapabilities = {
    nativeHybrid: false,
    textSearch: true,
    transactions: true,
    persistent: false,
    snapshot: false,
    readonly: false,
    links: true,
  };

  private readonly records = new Map<string, BackendRecord>();
  private readonly keyword = new KeywordIndex();
  private readonly links = new LinkIndex();
  private readonly meta = new Map<string, string>();
  /** Scan order and the by-value lookups of dedup and history. */
  private readonly order = new RecordOrder();
  /** Undo logs of the open transactions. Stored records are never mutated in place, so a log keeps references. */
  private readonly logs = new Set<UndoLog>();
  /**
   * While a transaction is open, every record change as `id, record before` (flat pairs; a map per
   * open transaction cost two lookups a record, per transaction, nested ones included). A
   * transaction's undo is the first entry of each id from its start on; emptied when none is open.
   */
  private readonly journal: (string | BackendRecord | undefined)[] = [];
  private dimension: number | undefined;
  private closed = false;
  private readonly denseMode: 'approximate' | 'exact';
  /** Sign-bit codes of the vectors, created with the dimension; ids of the sparse ones beside. */
  private codes: BinaryIndex<string> | undefined;
  private readonly sparse = new Set<string>();

  constructor(options: InMemoryBackendOptions = {}) {
    this.denseMode = options.denseSearch ?? 'approximate';
    if (this.denseMode !== 'approximate' && this.denseMode !== 'exact')
      throw invalidInput(`denseSearch is 'approximate' or 'exact', got ${JSON.stringify(options.denseSearch)}.`);
  }

  async init(options: BackendInitOptions): Promise<void> {
    this.assertOpen();
    if (this.dimension !== undefined && this.dimension !== options.dimension) {
      throw new AgentMemoryError(
        'DIMENSION_MISMATCH',
        `This store holds ${this.dimension}-dimensional vectors; it cannot take ${options.dimension}. Use an embedder of dimension ${this.dimension}, or a new store and re-embed (snapshot + merge with reembed).`,
        { details: { expected: this.dimension, actual: options.dimension } },
      );
    }
    this.dimension = options.dimension;
    this.codes ??= new BinaryIndex(options.dimension);
  }

  async upsert(records: readonly BackendRecord[]): Promise<void> {
    this.assertOpen();
    for (const r of records) this.checkRecord(r);
    // One copy of a payload object that several records of the call share (a history entry's copy
    // of the memory written beside it): stored records are never changed in place, so they can share it.
    const copies = new Map<object, unknown>();
    const vectors = new VectorSlab(this.dimension ?? 0);
    for (const r of records) {
      const copy = cloneRecord(r, false, copies);
      if (r.vector) copy.vector = vectors.copy(r.vector);
      // One lookup of the record before for the undo journal and the indexes.
      const before = this.records.get(r.id);
      if (this.logs.size > 0) this.journal.push(r.id, before);
      this.put(copy, before);
    }
  }

  /** Stores a record with its keyword and binary index entries (`before`: the record it replaces). */
  private put(record: BackendRecord, before = this.records.get(record.id)): void {
    this.order.put(record, before);
    this.records.set(record.id, record);
    this.keyword.set(record.id, record);
    this.links.set(record.id, record.tenant, record.namespace, record.links);
    if (record.vector) {
      this.codes?.set(record.id, record.tenant, record.namespace, record.vector);
      if (isSparse(record.vector)) this.sparse.add(record.id);
      else if (before) this.sparse.delete(record.id);
    } else if (before) this.unindexVector(record.id); // a new id has no vector entries to drop
  }

  private drop(id: string): boolean {
    const record = this.records.get(id);
    if (!record) return false;
    this.records.delete(id);
    this.order.drop(record);
    this.keyword.remove(id);
    this.links.remove(id);
    this.unindexVector(id);
    return true;
  }

  private unindexVector(id: string): void {
    this.codes?.remove(id);
    this.sparse.delete(id);
  }

  async patch(patches: readonly RecordPatch[]): Promise<number> {
    this.assertOpen();
    let changed = 0;
    for (const p of patches) {
      const r = this.records.get(p.id);
      if (!r) continue;
      this.logChange(p.id);
      const attributes = p.attributes ? { ...r.attributes, ...p.attributes } : r.attributes;
      this.records.set(p.id, { ...r, attributes, payload: p.payload ? cloneJson(p.payload) : r.payload });
      if (p.attributes) {
        this.keyword.setAttributes(p.id, p.attributes);
        this.order.patched(p.id, r.attributes, attributes);
      }
      changed++;
    }
    return changed;
  }

  async get(
    ids: readonly string[],
    options: { tenant?: string | null; withVectors?: boolean } = {},
  ): Promise<BackendRecord[]> {
    this.assertOpen();
    const out: BackendRecord[] = [];
    for (const id of new Set(ids)) {
      const r = this.records.get(id);
      if (!r) continue;
      if (typeof options.tenant === 'string' && r.tenant !== options.tenant) continue;
      out.push(cloneRecord(r, options.withVectors ?? true));
    }
    return out;
  }

  async delete(ids: readonly string[]): Promise<number> {
    this.assertOpen();
    let n = 0;
    for (const id of new Set(ids)) {
      this.logChange(id);
      if (this.drop(id)) n++;
    }
    return n;
  }

  async scan(options: ScanOptions): Promise<ScanPage> {
    this.assertOpen();
    const limit = Math.max(1, options.limit ?? DEFAULT_PAGE);
    const { ids, start } = this.order.candidates(() => this.records.keys(), options.filter, options.cursor);
    const page: BackendRecord[] = [];
    // One record past the page says whether another page follows.
    for (let i = start; i < ids.length && page.length <= limit; i++) {
      const r = this.records.get(ids[i]!);
      if (r && matchesFilter(r, options.filter)) page.push(r);
    }
    const more = page.length > limit;
    if (more) page.pop();
    const records = page.map((r) => cloneRecord(r, options.withVectors ?? false));
    return more ? { records, cursor: page[page.length - 1]!.id } : { records };
  }

  async search(request: SearchRequest): Promise<SearchHit[]> {
    this.assertOpen();
    if (request.mode === 'hybrid') {
      throw new AgentMemoryError(
        'CAPABILITY_MISSING',
        'InMemoryBackend has no native hybrid search; MemoryStore fuses dense and keyword results itself.',
      );
    }
    const k = Math.max(0, Math.floor(request.k));
    if (k === 0) return [];
    if (request.mode === 'dense') {
      if (!request.vector) throw invalidInput('A dense search needs `vector`.');
      this.checkDimension(request.vector);
      const approximate = this.approximateDense(request.vector, request.filter, k);
      if (approximate) return topK(approximate, k);
      const hits: SearchHit[] = [];
      for (const r of this.records.values()) {
        if (!r.vector || !matchesFilter(r, request.filter)) continue;
        hits.push({ record: r, score: cosineSimilarity(request.vector, r.vector) });
      }
      return topK(hits, k);
    }
    if (request.text === undefined) throw invalidInput('A keyword search needs `text`.');
    const filter = request.filter;
    const admit = this.keyword.holds(filter) ? undefined : (id: string) => matchesFilter(this.records.get(id)!, filter);
    return this.keyword
      .search(request.text, filter, k, admit)
      .map((m) => ({ record: cloneRecord(this.records.get(m.id)!, false), score: m.score }));
  }

  /** Candidates from the binary index, scored exactly; undefined when an exact scan must run. */
  private approximateDense(vector: Float32Array, filter: RecordFilter, k: number): SearchHit[] | undefined {
    const codes = this.codes;
    if (this.denseMode === 'exact' || !codes || codes.size === 0 || this.sparse.size * 10 > codes.size)
      return undefined;
    const scope = { tenant: filter.tenant, ...(filter.namespaces ? { namespaces: filter.namespaces } : {}) };
    return approximateCandidates(k, codes.count(scope), (m) => {
      const ids = codes.nearest(vector, scope, m);
      const passing: SearchHit[] = [];
      for (const id of ids) {
        const r = this.records.get(id);
        if (r?.vector && matchesFilter(r, filter))
          passing.push({ record: r, score: cosineSimilarity(vector, r.vector) });
      }
      return { taken: ids.length, passing };
    });
  }

  async linked(query: LinkQuery): Promise<LinkedKey[]> {
    this.assertOpen();
    return this.links.linked({ ...query, keys: linkQueryKeys(query) });
  }

  async linkKeys(options: LinkKeysOptions): Promise<LinkKeysPage> {
    this.assertOpen();
    return this.links.keys(options);
  }

  async count(filter: RecordFilter): Promise<number> {
    this.assertOpen();
    let n = 0;
    for (const r of this.records.values()) if (matchesFilter(r, filter)) n++;
    return n;
  }

  async namespaces(options: { tenant?: string | null } = {}): Promise<NamespaceCount[]> {
    this.assertOpen();
    const counts = new Map<string, NamespaceCount>();
    for (const r of this.records.values()) {
      if (typeof options.tenant === 'string' && r.tenant !== options.tenant) continue;
      const key = `${r.tenant}\u0000${r.namespace}`;
      const c = counts.get(key);
      if (c) c.count++;
      else counts.set(key, { namespace: r.namespace, tenant: r.tenant, count: 1 });
    }
    return [...counts.values()].sort((a, b) =>
      a.tenant === b.tenant ? a.namespace.localeCompare(b.namespace) : a.tenant.localeCompare(b.tenant),
    );
  }

  async getMeta(key: string): Promise<string | undefined> {
    this.assertOpen();
    return this.meta.get(key);
  }

  async setMeta(key: string, value: string): Promise<void> {
    this.assertOpen();
    for (const log of this.logs) if (!log.meta.has(key)) log.meta.set(key, this.meta.get(key));
    this.meta.set(key, value);
  }

  /**
   * All or nothing: on error every record and meta value changed since the
   * transaction began is put back as it was. Only what changed is logged, so
   * a transaction costs the same in a store of any size.
   */
  async transaction<T>(fn: () => Promise<T>): Promise<T> {
    this.assertOpen();
    const log: UndoLog = { start: this.journal.length, meta: new Map() };
    this.logs.add(log);
    try {
      return await fn();
    } catch (error) {
      this.logs.delete(log);
      const records = new Map<string, BackendRecord | undefined>();
      for (let i = log.start, end = this.journal.length; i < end; i += 2) {
        const id = this.journal[i] as string;
        if (!records.has(id)) records.set(id, this.journal[i + 1] as BackendRecord | undefined);
      }
      for (const [id, before] of records) {
        this.logChange(id); // an enclosing transaction must still be able to undo this
        if (before) this.put(before);
        else this.drop(id);
      }
      for (const [key, before] of log.meta) {
        if (before === undefined) this.meta.delete(key);
        else this.meta.set(key, before);
      }
      throw error;
    } finally {
      this.logs.delete(log);
      if (this.logs.size === 0) this.journal.length = 0;
    }
  }

  /** Remembers, for the open transactions, how a record was before this change. */
  private logChange(id: string): void {
    if (this.logs.size > 0) this.journal.push(id, this.records.get(id));
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  private assertOpen(): void {
    if (this.closed) throw new AgentMemoryError('CLOSED', 'This backend is closed; open a new one.');
  }

  private checkRecord(r: BackendRecord): void {
    if (typeof r.id !== 'string' || r.id.length === 0) throw invalidInput('Every record needs a non-empty string id.');
    if (r.context !== undefined && typeof r.context !== 'string')
      throw invalidInput(`Record ${r.id}: context must be a string when given.`);
    checkLinks(r.id, r.links);
    if (r.vector) this.checkDimension(r.vector);
  }

  private checkDimension(v: Float32Array): void {
    if (this.dimension === undefined) {
      throw new AgentMemoryError('INVALID_INPUT', 'Call init({ dimension }) before writing or searching vectors.');
    }
    if (v.length !== this.dimension) {
      throw new AgentMemoryError(
        'DIMENSION_MISMATCH',
        `Vector has ${v.length} dimensions but this store holds ${this.dimension}. Use the embedder the store was built with, or re-embed into a new store.`,
        { details: { expected: this.dimension, actual: v.length } },
      );
    }
  }
}

function topK(hits: SearchHit[], k: number): SearchHit[] {
  hits.sort((a, b) => b.score - a.score || (a.record.id < b.record.id ? -1 : 1));
  return hits.slice(0, k).map((h) => ({ ...h, record: cloneRecord(h.record, false) }));
}

function cloneRecord(r: BackendRecord, withVector: boolean, copies?: Map<object, unknown>): BackendRecord {
  const copy: BackendRecord = {
    id: r.id,
    namespace: r.namespace,
    tenant: r.tenant,
    text: r.text,
    attributes: { ...r.attributes },
    payload: cloneJson(r.payload, copies),
  };
  if (r.context !== undefined) copy.context = r.context;
  if (r.links !== undefined) copy.links = [...r.links];
  if (withVector && r.vector) copy.vector = new Float32Array(r.vector);
  return copy;
}

/**
 * A deep copy of a payload (JSON by the contract): plain objects and arrays are copied directly,
 * several times faster than structuredClone, which still copies anything else (a Date, say).
 */
function cloneJson<T>(value: T, copies?: Map<object, unknown>, depth = 0): T {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => cloneJson(item)) as T;
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return structuredClone(value);
  // Payloads are remembered, and looked up at the top and one level below (a history entry's copy of
  // the memory written beside it); deeper objects are copied each time (they would only fill the map).
  const known = copies?.get(value);
  if (known !== undefined) return known as T;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const v = (value as Record<string, unknown>)[key];
    // Most values are strings and numbers: taken here, not by a call each (a payload's ~15 calls were
    // most of a cold process's copy, before the compiler has the recursion optimised).
    const item = v === null || typeof v !== 'object' ? v : cloneJson(v, depth === 0 ? copies : undefined, depth + 1);
    // An own "__proto__" key (JSON.parse makes one) stays a key; assigning it would set the prototype.
    if (key === '__proto__')
      Object.defineProperty(copy, key, { value: item, enumerable: true, writable: true, configurable: true });
    else copy[key] = item;
  }
  if (depth === 0) copies?.set(value, copy);
  return copy as T;
}

/**
 * Copies of vectors in shared blocks: a Float32Array of its own per record cost an ArrayBuffer
 * allocation each (most of a record's copy). Blocks are small, so a block kept alive by one record
 * after the others are gone holds little.
 */
class VectorSlab {
  private block: Float32Array | undefined;
  private used = 0;
  constructor(private readonly dimension: number) {}

  copy(vector: Float32Array): Float32Array {
    if (vector.length !== this.dimension) return new Float32Array(vector);
    if (!this.block || this.used === VECTORS_PER_BLOCK) {
      this.block = new Float32Array(this.dimension * VECTORS_PER_BLOCK);
      this.used = 0;
    }
    // A view made by the constructor: `subarray` looks up the species constructor, several times the cost.
    const view = new Float32Array(this.block.buffer, this.used * this.dimension * 4, this.dimension);
    this.used++;
    view.set(vector);
    return view;
  }
}

const VECTORS_PER_BLOCK = 32;
