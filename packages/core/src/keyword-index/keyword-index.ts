import { BM25_B, BM25_B_CONTEXT, BM25_K1, CONTEXT_WEIGHT } from '../backends/bm25';
import { matchesCondition } from '../backends/match-filter';
import type { AttributeCondition, AttributeValue, RecordFilter } from '../contracts';
import { keywordTerms } from './keyword-terms';

/** What the keyword index needs of a record: its scope, its two text fields, the attributes filters test. */
export interface KeywordDocument {
  tenant: string;
  namespace: string;
  text: string;
  context?: string;
  attributes: Readonly<Record<string, AttributeValue | undefined>>;
}

/** One scored match: the record id and its BM25F score. */
export interface KeywordMatch {
  id: string;
  score: number;
}

/** Attributes held as columns by default: the ones recall filters on (kind, status, type, event time). */
export const KEYWORD_INDEX_COLUMNS: readonly string[] = ['kind', 'status', 'type', 'occurredAt'];

/** Term frequencies are kept in 16 bits per field; BM25 saturation makes anything above indistinguishable. */
const MAX_TF = 0xffff;

/** A term's postings: slots and packed (text tf | context tf << 16), `n` used. */
interface Posting {
  slots: Int32Array;
  tfs: Uint32Array;
  n: number;
}

/** A filterable attribute: an interned label per slot (-1 for a number) and the number itself. */
interface Column {
  key: string;
  labels: Int32Array;
  numbers: Float64Array;
}

/** One compiled condition on a column. */
interface ColumnTest {
  column: Column;
  /** Whether each interned label passes. */
  labelOk: Uint8Array;
  /** Whether a number passes. */
  numberOk: (x: number) => boolean;
}

/**
 * An in-process inverted index for keyword search, ranked with core's BM25F
 * (the same scores as `Bm25Index`): term -> postings of (document slot, term
 * frequency in the text and in the context), per-field lengths, and the scope
 * and filterable attributes of each document as typed arrays. A search makes
 * one pass over the documents to count the filter's corpus statistics
 * (document count and average lengths over the admitted documents, as every
 * backend defines them), one pass over each query term's postings, and keeps
 * the k best in a heap: no per-document objects, no sort of every match.
 * Removed documents leave dead slots that a compaction drops once they are a
 * quarter of all. Writes can be journaled (`begin`/`commit`/`rollback`) so a
 * caller can undo them with its transaction.
 */
export class KeywordIndex {
  private readonly termIds = new Map<string, number>();
  private readonly postings: Posting[] = [];
  private readonly slotOf = new Map<string, number>();
  private ids: (string | undefined)[] = [];
  private scope = new Int32Array(1024);
  /** 1 while the slot's document is in the index; removed ones stay as dead slots until a compaction. */
  private alive = new Uint8Array(1024);
  private textLength = new Uint32Array(1024);
  private contextLength = new Uint32Array(1024);
  private readonly columns: Column[];
  private readonly labelIds = new Map<string, number>();
  private readonly labels: AttributeValue[] = [];
  private readonly scopeIds = new Map<string, number>();
  private readonly scopeTenants: string[] = [];
  private readonly scopeNamespaces: string[] = [];
  private used = 0;
  private dead = 0;
  private journal: (() => void)[] | undefined;
  // Per-search scratch, reused.
  private admitted = new Uint8Array(0);
  private scores = new Float64Array(0);

  constructor(
    options: {
      /** Attributes held per document for filtering; others need the caller's `admit`. */
      columns?: readonly string[];
      params?: { k1: number; b: number; contextB: number; contextWeight: number };
    } = {},
  ) {
    this.columns = (options.columns ?? KEYWORD_INDEX_COLUMNS).map((key) => ({
      key,
      labels: new Int32Array(1024),
      numbers: new Float64Array(1024),
    }));
    this.params = options.params ?? { k1: BM25_K1, b: BM25_B, contextB: BM25_B_CONTEXT, contextWeight: CONTEXT_WEIGHT };
  }

  private readonly params: { k1: number; b: number; contextB: number; contextWeight: number };

  /** Documents indexed (records with at least one term). */
  get size(): number {
    return this.slotOf.size;
  }

  has(id: string): boolean {
    return this.slotOf.has(id);
  }

  /** Indexes (or re-indexes) a record; one without terms is not a document, as in FTS5. */
  set(id: string, doc: KeywordDocument): void {
    const terms = keywordTerms(doc.text);
    const contextTerms = doc.context ? keywordTerms(doc.context) : [];
    const before = this.slotOf.get(id);
    if (before !== undefined) {
      this.kill(id, before);
      this.journal?.push(() => this.revive(id, before));
    }
    if (terms.length + contextTerms.length === 0) return;
    const slot = this.allocate(id, doc, terms.length, contextTerms.length);
    const tfs = new Map<string, number>();
    for (const t of terms) tfs.set(t, Math.min(MAX_TF, (tfs.get(t) ?? 0) + 1));
    for (const t of contextTerms) {
      const tf = tfs.get(t) ?? 0;
      if (tf >>> 16 < MAX_TF) tfs.set(t, tf + 0x10000);
    }
    for (const [term, tf] of tfs) this.post(term, slot, tf);
    this.journal?.push(() => this.kill(id, slot));
  }

  /** Rewrites the filterable attributes of a document (a patch), merged key by key; a key set to undefined is missing. */
  setAttributes(id: string, attributes: Readonly<Record<string, AttributeValue | undefined>>): void {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return;
    for (const column of this.columns) {
      if (!Object.hasOwn(attributes, column.key)) continue;
      const label = column.labels[slot]!;
      const number = column.numbers[slot]!;
      this.writeColumn(column, slot, attributes[column.key] ?? null);
      this.journal?.push(() => {
        column.labels[slot] = label;
        column.numbers[slot] = number;
      });
    }
  }

  remove(id: string): void {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return;
    this.kill(id, slot);
    this.journal?.push(() => this.revive(id, slot));
  }

  clear(): void {
    this.termIds.clear();
    this.postings.length = 0;
    this.slotOf.clear();
    this.ids = [];
    this.alive.fill(0);
    this.used = 0;
    this.dead = 0;
    this.journal = this.journal ? [] : undefined;
  }

  /** Starts journaling writes (or returns the position inside an open journal, for a savepoint). */
  begin(): number {
    this.journal ??= [];
    return this.journal.length;
  }

  /** Undoes the journaled writes after `mark` (a savepoint; journaling goes on), or all of them and ends the journal. */
  rollback(mark?: number): void {
    const journal = this.journal;
    if (!journal) return;
    while (journal.length > (mark ?? 0)) journal.pop()!();
    if (mark === undefined) this.journal = undefined;
  }

  /** Keeps the journaled writes and stops journaling. */
  commit(): void {
    this.journal = undefined;
    this.maybeCompact();
  }

  /** Whether the filter only tests attributes this index holds (else `search` needs `admit`). */
  holds(filter: RecordFilter): boolean {
    for (const [key, condition] of Object.entries(filter.where ?? {})) {
      if (condition !== undefined && !this.columns.some((c) => c.key === key)) return false;
    }
    return true;
  }

  /**
   * The k best documents for the query among those the filter admits, best
   * first (ties by id). Corpus statistics are those of the admitted documents.
   * `admit` is asked about every document of the filter's scope when the
   * filter tests attributes the index does not hold (see `holds`).
   */
  search(query: string, filter: RecordFilter, k: number, admit?: (id: string) => boolean): KeywordMatch[] {
    if (k <= 0) return [];
    const postings: Posting[] = [];
    for (const term of new Set(keywordTerms(query))) {
      const id = this.termIds.get(term);
      if (id !== undefined) postings.push(this.postings[id]!);
    }
    if (postings.length === 0) return [];
    const tests = this.compile(filter);
    if (tests === undefined) return [];
    if (!this.holds(filter) && !admit)
      throw new Error('KeywordIndex.search: this filter tests attributes the index does not hold; pass admit.');
    const needsAdmit = admit !== undefined && !this.holds(filter);
    const scopeOk = this.scopeFilter(filter);
    // Pass 1: which documents the filter admits, their count and total field lengths.
    if (this.admitted.length < this.used) this.admitted = new Uint8Array(Math.max(this.used, this.admitted.length * 2));
    const admitted = this.admitted;
    const scope = this.scope;
    const alive = this.alive;
    let n = 0;
    let totalText = 0;
    let totalContext = 0;
    for (let s = 0; s < this.used; s++) {
      admitted[s] = 0;
      if (alive[s] === 0 || scopeOk[scope[s]!] === 0) continue;
      if (tests.length > 0 && !passes(tests, s)) continue;
      if (needsAdmit && !admit!(this.ids[s]!)) continue;
      admitted[s] = 1;
      n++;
      totalText += this.textLength[s]!;
      totalContext += this.contextLength[s]!;
    }
    if (n === 0) return [];
    const avgText = totalText / n || 1;
    const avgContext = totalContext / n || 1;
    const { k1, b, contextB: bc, contextWeight: w } = this.params;
    if (this.scores.length < this.used) this.scores = new Float64Array(Math.max(this.used, this.scores.length * 2));
    const scores = this.scores;
    const touched: number[] = [];
    // Pass 2: per term, its document frequency among the admitted, then its share of their scores.
    for (const p of postings) {
      let df = 0;
      // admitted: 0 no, 1 yes, 2 yes and already scored.
      for (let i = 0; i < p.n; i++) df += (admitted[p.slots[i]!]! + 1) >> 1;
      if (df === 0) continue;
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      for (let i = 0; i < p.n; i++) {
        const s = p.slots[i]!;
        if (admitted[s] === 0) continue;
        const packed = p.tfs[i]!;
        const ft = packed & 0xffff;
        const fc = packed >>> 16;
        let f = ft / (1 - b + (b * this.textLength[s]!) / avgText);
        if (fc) f += (w * fc) / (1 - bc + (bc * this.contextLength[s]!) / avgContext);
        if (admitted[s] === 1) {
          admitted[s] = 2;
          scores[s] = 0;
          touched.push(s);
        }
        scores[s] = scores[s]! + (idf * f * (k1 + 1)) / (f + k1);
      }
    }
    return this.best(touched, k);
  }

  /** The k best touched slots by (score desc, id asc), with a bounded heap. */
  private best(touched: number[], k: number): KeywordMatch[] {
    const scores = this.scores;
    const ids = this.ids;
    // worse(a, b): a ranks below b.
    const worse = (a: number, b: number) =>
      scores[a]! < scores[b]! || (scores[a] === scores[b] && ids[a]! > ids[b]!);
    const heap: number[] = [];
    const down = (i: number) => {
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < heap.length && worse(heap[l]!, heap[m]!)) m = l;
        if (r < heap.length && worse(heap[r]!, heap[m]!)) m = r;
        if (m === i) return;
        [heap[i], heap[m]] = [heap[m]!, heap[i]!];
        i = m;
      }
    };
    for (const s of touched) {
      if (heap.length < k) {
        heap.push(s);
        for (let i = heap.length - 1; i > 0; ) {
          const parent = (i - 1) >> 1;
          if (!worse(heap[i]!, heap[parent]!)) break;
          [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
          i = parent;
        }
      } else if (worse(heap[0]!, s)) {
        heap[0] = s;
        down(0);
      }
    }
    return heap
      .sort((a, b) => (worse(a, b) ? 1 : worse(b, a) ? -1 : 0))
      .map((s) => ({ id: ids[s]!, score: scores[s]! }));
  }

  /** Whether each scope id is in the filter's tenant and namespaces. */
  private scopeFilter(filter: RecordFilter): Uint8Array {
    const ok = new Uint8Array(this.scopeTenants.length);
    const namespaces = filter.namespaces ? new Set(filter.namespaces) : undefined;
    for (let i = 0; i < ok.length; i++) {
      if (filter.tenant !== null && this.scopeTenants[i] !== filter.tenant) continue;
      if (namespaces && !namespaces.has(this.scopeNamespaces[i]!)) continue;
      ok[i] = 1;
    }
    return ok;
  }

  /** The tests of the filter's conditions on held columns; undefined when the filter admits nothing. */
  private compile(filter: RecordFilter): ColumnTest[] | undefined {
    if (filter.namespaces && filter.namespaces.length === 0) return undefined;
    const tests: ColumnTest[] = [];
    for (const [key, condition] of Object.entries(filter.where ?? {})) {
      if (condition === undefined) continue;
      const column = this.columns.find((c) => c.key === key);
      if (!column) continue;
      const labelOk = new Uint8Array(this.labels.length);
      for (let i = 0; i < labelOk.length; i++) labelOk[i] = matchesCondition(this.labels[i]!, condition) ? 1 : 0;
      tests.push({ column, labelOk, numberOk: numberTest(condition) });
    }
    return tests;
  }

  private allocate(id: string, doc: KeywordDocument, textLength: number, contextLength: number): number {
    if (this.used === this.scope.length) this.grow();
    const slot = this.used++;
    this.ids[slot] = id;
    this.slotOf.set(id, slot);
    this.scope[slot] = this.scopeId(doc.tenant, doc.namespace);
    this.alive[slot] = 1;
    this.textLength[slot] = textLength;
    this.contextLength[slot] = contextLength;
    for (const column of this.columns) this.writeColumn(column, slot, doc.attributes[column.key] ?? null);
    return slot;
  }

  private writeColumn(column: Column, slot: number, value: AttributeValue): void {
    if (typeof value === 'number') {
      column.labels[slot] = -1;
      column.numbers[slot] = value;
      return;
    }
    const key = JSON.stringify(value);
    let label = this.labelIds.get(key);
    if (label === undefined) {
      label = this.labels.length;
      this.labels.push(value);
      this.labelIds.set(key, label);
    }
    column.labels[slot] = label;
    column.numbers[slot] = Number.NaN;
  }

  private scopeId(tenant: string, namespace: string): number {
    const key = `${tenant}\u0000${namespace}`;
    let id = this.scopeIds.get(key);
    if (id === undefined) {
      id = this.scopeTenants.length;
      this.scopeIds.set(key, id);
      this.scopeTenants.push(tenant);
      this.scopeNamespaces.push(namespace);
    }
    return id;
  }

  private post(term: string, slot: number, tf: number): void {
    let id = this.termIds.get(term);
    if (id === undefined) {
      id = this.postings.length;
      this.termIds.set(term, id);
      this.postings.push({ slots: new Int32Array(4), tfs: new Uint32Array(4), n: 0 });
    }
    const p = this.postings[id]!;
    if (p.n === p.slots.length) {
      const slots = new Int32Array(p.n * 2);
      slots.set(p.slots);
      p.slots = slots;
      const tfs = new Uint32Array(p.n * 2);
      tfs.set(p.tfs);
      p.tfs = tfs;
    }
    p.slots[p.n] = slot;
    p.tfs[p.n] = tf;
    p.n++;
  }

  /** Marks a slot dead; its postings stay until a compaction (so a rollback can revive it). */
  private kill(id: string, slot: number): void {
    if (this.alive[slot] === 0) return;
    this.alive[slot] = 0;
    if (this.slotOf.get(id) === slot) this.slotOf.delete(id);
    this.dead++;
    if (!this.journal) this.maybeCompact();
  }

  private revive(id: string, slot: number): void {
    if (this.alive[slot] === 1) return;
    this.alive[slot] = 1;
    this.slotOf.set(id, slot);
    this.dead--;
  }

  private maybeCompact(): void {
    if (this.journal || this.dead < 1024 || this.dead * 4 < this.used) return;
    // Live slots move down in order; postings keep their order, so scores and ties are unchanged.
    const moved = new Int32Array(this.used).fill(-1);
    let live = 0;
    for (let s = 0; s < this.used; s++) {
      if (this.alive[s] === 0) continue;
      moved[s] = live;
      this.scope[live] = this.scope[s]!;
      this.alive[live] = 1;
      this.textLength[live] = this.textLength[s]!;
      this.contextLength[live] = this.contextLength[s]!;
      for (const c of this.columns) {
        c.labels[live] = c.labels[s]!;
        c.numbers[live] = c.numbers[s]!;
      }
      this.ids[live] = this.ids[s];
      this.slotOf.set(this.ids[s]!, live);
      live++;
    }
    this.ids.length = live;
    for (const p of this.postings) {
      let j = 0;
      for (let i = 0; i < p.n; i++) {
        const to = moved[p.slots[i]!]!;
        if (to === -1) continue;
        p.slots[j] = to;
        p.tfs[j] = p.tfs[i]!;
        j++;
      }
      p.n = j;
    }
    this.alive.fill(0, live, this.used);
    this.used = live;
    this.dead = 0;
  }

  private grow(): void {
    const size = this.scope.length * 2;
    this.scope = grown(this.scope, new Int32Array(size));
    this.alive = grown(this.alive, new Uint8Array(size));
    this.textLength = grown(this.textLength, new Uint32Array(size));
    this.contextLength = grown(this.contextLength, new Uint32Array(size));
    for (const c of this.columns) {
      c.labels = grown(c.labels, new Int32Array(size));
      c.numbers = grown(c.numbers, new Float64Array(size));
    }
  }
}

function grown<T extends Int32Array | Uint32Array | Uint8Array | Float64Array>(from: T, to: T): T {
  to.set(from);
  return to;
}

function passes(tests: readonly ColumnTest[], s: number): boolean {
  for (const t of tests) {
    const label = t.column.labels[s]!;
    if (label >= 0 ? t.labelOk[label] === 0 : !t.numberOk(t.column.numbers[s]!)) return false;
  }
  return true;
}

function numberTest(condition: AttributeCondition): (x: number) => boolean {
  if (typeof condition === 'number') return (x) => x === condition;
  if (condition === null || typeof condition !== 'object') return () => false;
  if ('in' in condition || 'notIn' in condition || 'ne' in condition) return (x) => matchesCondition(x, condition);
  const { gt, gte, lt, lte } = condition;
  return (x) =>
    (gt === undefined || x > gt) &&
    (gte === undefined || x >= gte) &&
    (lt === undefined || x < lt) &&
    (lte === undefined || x <= lte);
}
