// The in-process BM25F index every embedded backend keeps beside its records. It is rebuilt from the
// records when a store opens, or read back from `toBytes()` (SQLite keeps that snapshot so a cold open
// with many memories does not re-tokenise every one of them before the first recall).
import { BM25_B, BM25_B_CONTEXT, BM25_K1, CONTEXT_WEIGHT } from '../bm25';
import { matchesCondition } from '../match-filter';
import type { AttributeCondition, AttributeValue, RecordFilter } from '../../contracts';
import { keywordTerms } from '../../text/keyword-terms';

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
/**
 * How many of the columns (the first ones) also split documents into classes
 * whose statistics are counted as they are written: a filter on the scope and
 * these alone needs no pass over the documents.
 */
const CLASS_COLUMNS = 2;
/** Class 0 holds no document: the class of dead slots. */
const DEAD = 0;

/** Term frequencies are kept in 16 bits per field; BM25 saturation makes anything above indistinguishable. */
const MAX_TF = 0xffff;

/** A term's postings: slots and packed (text tf | context tf << 16), `n` used; its document count per class. */
interface Posting {
  slots: Int32Array;
  tfs: Uint32Array;
  n: number;
  df: Int32Array;
  /** The largest text and context frequencies ever posted (bounds of a term's score; never lowered). */
  maxText: number;
  maxContext: number;
}

/** A query term during a search: its postings, cursor, idf, score bound and place in the query. */
interface Cursor {
  slots: Int32Array;
  tfs: Uint32Array;
  n: number;
  at: number;
  idf: number;
  bound: number;
  query: number;
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
 * (the same scores as the exhaustive `Bm25Index`): term -> postings of
 * (document slot, term frequency in the text and in the context), per-field
 * lengths, and the scope and filterable attributes of each document, all in
 * typed arrays. Documents fall into classes (scope, kind, status) whose
 * counts, total lengths and per-term document frequencies are kept as they
 * are written, so a search filtered on those (every recall) knows its corpus
 * statistics without visiting the documents and only walks the query terms'
 * postings; other filters take one pass over the documents first. The k best
 * are kept in a heap: no per-match objects, no sort of every match. Removed
 * documents leave dead slots that a compaction drops once they are a quarter
 * of all. Writes can be journaled (`begin`/`commit`/`rollback`) so a caller
 * can undo them with its transaction.
 */
export class KeywordIndex {
  private readonly termIds = new Map<string, number>();
  private readonly postings: Posting[] = [];
  private readonly slotOf = new Map<string, number>();
  private ids: (string | undefined)[] = [];
  private scope = new Int32Array(1024);
  private textLength = new Uint32Array(1024);
  private contextLength = new Uint32Array(1024);
  /** The class of each slot; DEAD once removed (its postings stay until a compaction). */
  private classOf = new Int32Array(1024);
  /** Each slot's term ids: `termCount[s]` of them from `termStart[s]` in `docTerms`. */
  private termStart = new Int32Array(1024);
  private termCount = new Int32Array(1024);
  private docTerms = new Int32Array(8192);
  private docTermsUsed = 0;
  private readonly columns: Column[];
  private readonly labelIds = new Map<string, number>();
  private readonly labels: AttributeValue[] = [];
  private readonly scopeIds = new Map<string, number>();
  private readonly scopeTenants: string[] = [];
  private readonly scopeNamespaces: string[] = [];
  private readonly classIds = new Map<string, number>();
  /** Per class: its scope, its class-column values, document count and total field lengths. */
  private readonly classScope: number[] = [-1];
  private readonly classValues: AttributeValue[][] = [[]];
  private readonly classN: number[] = [0];
  private readonly classText: number[] = [0];
  private readonly classContext: number[] = [0];
  private used = 0;
  private dead = 0;
  private journal: (() => void)[] | undefined;
  /** Restored by fromBytes: slotOf and each slot's term list (only writes need them) are not built yet. */
  private lazy = false;
  // Per-search scratch, reused.
  private admitted = new Uint8Array(0);
  private scores = new Float64Array(0);
  private identitySlots = new Int32Array(0);

  constructor(
    options: {
      /** Attributes held per document for filtering (the first two also class documents); others need `admit`. */
      columns?: readonly string[];
    } = {},
  ) {
    this.columns = (options.columns ?? KEYWORD_INDEX_COLUMNS).map((key) => ({
      key,
      labels: new Int32Array(1024),
      numbers: new Float64Array(1024),
    }));
  }

  /** Documents indexed (records with at least one term). */
  get size(): number {
    let n = 0; // the live slots: those in a class (one per id)
    for (let c = 1; c < this.classN.length; c++) n += this.classN[c]!;
    return n;
  }

  /** Indexes (or re-indexes) a record; one without terms is not a document, as in FTS5. */
  set(id: string, doc: KeywordDocument): void {
    this.materialize();
    const terms = keywordTerms(doc.text);
    const contextTerms = doc.context ? keywordTerms(doc.context) : [];
    const before = this.slotOf.get(id);
    if (before !== undefined) {
      this.kill(id, before);
      this.journal?.push(() => this.revive(id, before));
    }
    if (terms.length + contextTerms.length === 0) return;
    const tfs = new Map<string, number>();
    for (const t of terms) tfs.set(t, Math.min(MAX_TF, (tfs.get(t) ?? 0) + 1));
    for (const t of contextTerms) {
      const tf = tfs.get(t) ?? 0;
      if (tf >>> 16 < MAX_TF) tfs.set(t, tf + 0x10000);
    }
    if (this.used === this.scope.length) this.grow();
    const slot = this.used++;
    this.ids[slot] = id;
    this.slotOf.set(id, slot);
    this.scope[slot] = this.scopeId(doc.tenant, doc.namespace);
    this.textLength[slot] = terms.length;
    this.contextLength[slot] = contextTerms.length;
    for (const column of this.columns) this.writeColumn(column, slot, doc.attributes[column.key] ?? null);
    if (this.docTermsUsed + tfs.size > this.docTerms.length) {
      const size = Math.max(this.docTerms.length * 2, this.docTermsUsed + tfs.size);
      this.docTerms = grown(this.docTerms, new Int32Array(size));
    }
    this.termStart[slot] = this.docTermsUsed;
    this.termCount[slot] = tfs.size;
    for (const [term, tf] of tfs) this.docTerms[this.docTermsUsed++] = this.post(term, slot, tf);
    this.enter(slot);
    this.journal?.push(() => this.kill(id, slot));
  }

  /** Rewrites the filterable attributes of a document (a patch), merged key by key; a key set to undefined is missing. */
  setAttributes(id: string, attributes: Readonly<Record<string, AttributeValue | undefined>>): void {
    this.materialize();
    const slot = this.slotOf.get(id);
    if (slot === undefined) return;
    const changed = this.columns.filter((c) => Object.hasOwn(attributes, c.key));
    if (changed.length === 0) return;
    const before = changed.map((c) => [c.labels[slot]!, c.numbers[slot]!] as const);
    this.leave(slot);
    for (const column of changed) this.writeColumn(column, slot, attributes[column.key] ?? null);
    this.enter(slot);
    this.journal?.push(() => {
      this.leave(slot);
      changed.forEach((c, i) => {
        c.labels[slot] = before[i]![0];
        c.numbers[slot] = before[i]![1];
      });
      this.enter(slot);
    });
  }

  remove(id: string): void {
    this.materialize();
    const slot = this.slotOf.get(id);
    if (slot === undefined) return;
    this.kill(id, slot);
    this.journal?.push(() => this.revive(id, slot));
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
    if (filter.namespaces && filter.namespaces.length === 0) return [];
    const holds = this.holds(filter);
    if (!holds && !admit)
      throw new Error('KeywordIndex.search: this filter tests attributes the index does not hold; pass admit.');
    const { classOk, rest } = this.compile(filter);
    let n = 0;
    let totalText = 0;
    let totalContext = 0;
    const df: number[] = [];
    // A slot s is admitted when ok[byClass ? classOf[s] : s] is 1.
    let ok: Uint8Array;
    let byClass: Int32Array | undefined;
    if (holds && rest.length === 0) {
      // Statistics from the class counts.
      for (let c = 1; c < classOk.length; c++) {
        if (classOk[c] === 0) continue;
        n += this.classN[c]!;
        totalText += this.classText[c]!;
        totalContext += this.classContext[c]!;
      }
      for (const p of postings) {
        let d = 0;
        for (let c = 1; c < classOk.length && c < p.df.length; c++) if (classOk[c] === 1) d += p.df[c]!;
        df.push(d);
      }
      ok = classOk;
      byClass = this.classOf;
    } else {
      // One pass over the documents: which the filter admits, their count and total field lengths.
      if (this.admitted.length < this.used)
        this.admitted = new Uint8Array(Math.max(this.used, this.admitted.length * 2));
      const admitted = this.admitted;
      const classOf = this.classOf;
      for (let s = 0; s < this.used; s++) {
        admitted[s] = 0;
        if (classOk[classOf[s]!] === 0) continue;
        if (rest.length > 0 && !passes(rest, s)) continue;
        if (!holds && !admit!(this.ids[s]!)) continue;
        admitted[s] = 1;
        n++;
        totalText += this.textLength[s]!;
        totalContext += this.contextLength[s]!;
      }
      for (const p of postings) {
        let d = 0;
        for (let i = 0; i < p.n; i++) d += admitted[p.slots[i]!]!;
        df.push(d);
      }
      ok = admitted;
    }
    if (n === 0) return [];
    return this.maxScore(postings, df, n, totalText / n || 1, totalContext / n || 1, ok, byClass ?? this.identity(), k);
  }

  /**
   * The k best admitted matches by MaxScore (Turtle & Flood): documents are
   * visited in slot order across the query terms' postings; once the heap
   * holds k, the terms whose score bounds add up to less than its worst score
   * cannot make a document enter alone, so only documents of the other terms
   * are candidates, and the rest are looked up by galloping, stopping as soon
   * as a candidate's bound falls below. Exact: a document is only skipped when
   * its bound is below the k-th score, and scores are added in query order as
   * the exhaustive reference adds them. Ties go by id.
   */
  private maxScore(
    postings: readonly Posting[],
    df: readonly number[],
    n: number,
    avgText: number,
    avgContext: number,
    ok: Uint8Array,
    at: Int32Array,
    k: number,
  ): KeywordMatch[] {
    const k1 = BM25_K1;
    const b = BM25_B;
    const bc = BM25_B_CONTEXT;
    const w = CONTEXT_WEIGHT;
    const terms: Cursor[] = [];
    postings.forEach((p, query) => {
      const d = df[query]!;
      if (d === 0) return;
      const idf = Math.log(1 + (n - d + 0.5) / (d + 0.5));
      // f grows with a frequency even as the length grows with it (a field is at least as long as it).
      const f =
        p.maxText / (1 - b + (b * p.maxText) / avgText) +
        (w * p.maxContext) / (1 - bc + (bc * p.maxContext) / avgContext);
      const bound = ((idf * f * (k1 + 1)) / (f + k1)) * (1 + 1e-9) + 1e-12; // above any rounding of a real score
      terms.push({ slots: p.slots, tfs: p.tfs, n: p.n, at: 0, idf, bound, query });
    });
    terms.sort((x, y) => x.bound - y.bound);
    const count = terms.length;
    // below[i]: the sum of the bounds of terms 0..i-1 (the weaker ones).
    const below = new Float64Array(count + 1);
    for (let i = 0; i < count; i++) below[i + 1] = below[i]! + terms[i]!.bound;
    const parts = new Float64Array(postings.length);
    const has = new Uint8Array(postings.length);
    const textLength = this.textLength;
    const contextLength = this.contextLength;
    const part = (t: Cursor, s: number) => {
      const packed = t.tfs[t.at]!;
      const fc = packed >>> 16;
      let f = (packed & 0xffff) / (1 - b + (b * textLength[s]!) / avgText);
      if (fc !== 0) f += (w * fc) / (1 - bc + (bc * contextLength[s]!) / avgContext);
      return (t.idf * f * (k1 + 1)) / (f + k1);
    };
    const heap = new TopK(k, this.scores.length < this.used ? this.growScores() : this.scores, this.ids);
    // Terms [0, essential) are non-essential: together they cannot lift a document above the k-th.
    let essential = 0;
    for (;;) {
      let s = 0x7fffffff;
      for (let i = essential; i < count; i++) {
        const t = terms[i]!;
        if (t.at < t.n && t.slots[t.at]! < s) s = t.slots[t.at]!;
      }
      if (s === 0x7fffffff) break;
      let sum = 0;
      for (let i = essential; i < count; i++) {
        const t = terms[i]!;
        if (t.at < t.n && t.slots[t.at] === s) {
          if (ok[at[s]!] !== 0) {
            const x = part(t, s);
            parts[t.query] = x;
            has[t.query] = 1;
            sum += x;
          }
          t.at++;
        }
      }
      if (ok[at[s]!] === 0) continue;
      let skipped = false;
      for (let i = essential - 1; i >= 0; i--) {
        if (heap.full && sum + below[i + 1]! < heap.threshold) {
          skipped = true;
          break;
        }
        const t = terms[i]!;
        t.at = gallop(t.slots, t.at, t.n, s);
        if (t.at < t.n && t.slots[t.at] === s) {
          const x = part(t, s);
          parts[t.query] = x;
          has[t.query] = 1;
          sum += x;
        }
      }
      if (!skipped) {
        // The exhaustive reference adds the terms in query order, from 0.
        let score = 0;
        for (let q = 0; q < parts.length; q++) if (has[q] === 1) score = score + parts[q]!;
        if (heap.offer(s, score)) while (essential < count && below[essential + 1]! < heap.threshold) essential++;
      }
      has.fill(0);
    }
    return heap.sorted().map((slot) => ({ id: this.ids[slot]!, score: this.scores[slot]! }));
  }

  private growScores(): Float64Array {
    this.scores = new Float64Array(Math.max(this.used, this.scores.length * 2));
    return this.scores;
  }

  /** 0, 1, 2, … for every slot (admission by slot reads ok[identity[s]]). */
  private identity(): Int32Array {
    if (this.identitySlots.length < this.used) {
      this.identitySlots = new Int32Array(Math.max(this.used, this.identitySlots.length * 2));
      for (let i = 0; i < this.identitySlots.length; i++) this.identitySlots[i] = i;
    }
    return this.identitySlots;
  }

  /**
   * Whether each class passes the filter's scope and class-column conditions,
   * and the tests of its conditions on the other held columns.
   */
  private compile(filter: RecordFilter): { classOk: Uint8Array; rest: ColumnTest[] } {
    const namespaces = filter.namespaces ? new Set(filter.namespaces) : undefined;
    const scopeOk = this.scopeTenants.map(
      (tenant, i) =>
        (filter.tenant === null || tenant === filter.tenant) &&
        (!namespaces || namespaces.has(this.scopeNamespaces[i]!)),
    );
    const conditions: [number, AttributeCondition][] = [];
    for (const [key, condition] of Object.entries(filter.where ?? {})) {
      const i = this.columns.findIndex((c) => c.key === key);
      if (condition !== undefined && i >= 0) conditions.push([i, condition]);
    }
    const classOk = new Uint8Array(this.classScope.length);
    for (let c = 1; c < classOk.length; c++) {
      if (!scopeOk[this.classScope[c]!]) continue;
      const values = this.classValues[c]!;
      if (conditions.every(([i, condition]) => i >= CLASS_COLUMNS || matchesCondition(values[i]!, condition)))
        classOk[c] = 1;
    }
    const rest: ColumnTest[] = [];
    for (const [i, condition] of conditions) {
      if (i < CLASS_COLUMNS) continue;
      const labelOk = new Uint8Array(this.labels.length);
      for (let l = 0; l < labelOk.length; l++) labelOk[l] = matchesCondition(this.labels[l]!, condition) ? 1 : 0;
      rest.push({ column: this.columns[i]!, labelOk, numberOk: numberTest(condition) });
    }
    return { classOk, rest };
  }

  /** The value a column holds for a slot. */
  private value(column: Column, slot: number): AttributeValue {
    const label = column.labels[slot]!;
    return label >= 0 ? this.labels[label]! : column.numbers[slot]!;
  }

  /** Puts a slot into the class of its scope and class-column values, counting it there. */
  private enter(slot: number): void {
    const values = this.columns.slice(0, CLASS_COLUMNS).map((c) => this.value(c, slot));
    const key = `${this.scope[slot]}\u0000${JSON.stringify(values)}`;
    let c = this.classIds.get(key);
    if (c === undefined) {
      c = this.classScope.length;
      this.classIds.set(key, c);
      this.classScope.push(this.scope[slot]!);
      this.classValues.push(values);
      this.classN.push(0);
      this.classText.push(0);
      this.classContext.push(0);
    }
    this.classOf[slot] = c;
    this.classN[c]!++;
    this.classText[c]! += this.textLength[slot]!;
    this.classContext[c]! += this.contextLength[slot]!;
    const end = this.termStart[slot]! + this.termCount[slot]!;
    for (let i = this.termStart[slot]!; i < end; i++) {
      const p = this.postings[this.docTerms[i]!]!;
      if (p.df.length <= c) p.df = grown(p.df, new Int32Array(Math.max(c + 1, p.df.length * 2)));
      p.df[c]!++;
    }
  }

  /** Takes a slot out of its class's counts: it is DEAD until it enters one again. */
  private leave(slot: number): void {
    const c = this.classOf[slot]!;
    if (c === DEAD) return;
    this.classOf[slot] = DEAD;
    this.classN[c]!--;
    this.classText[c]! -= this.textLength[slot]!;
    this.classContext[c]! -= this.contextLength[slot]!;
    const end = this.termStart[slot]! + this.termCount[slot]!;
    for (let i = this.termStart[slot]!; i < end; i++) this.postings[this.docTerms[i]!]!.df[c]!--;
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

  /** Appends the slot to the term's postings; returns the term id. */
  private post(term: string, slot: number, tf: number): number {
    let id = this.termIds.get(term);
    if (id === undefined) {
      id = this.postings.length;
      this.termIds.set(term, id);
      this.postings.push({
        slots: new Int32Array(4),
        tfs: new Uint32Array(4),
        n: 0,
        df: new Int32Array(4),
        maxText: 0,
        maxContext: 0,
      });
    }
    const p = this.postings[id]!;
    if (p.n === p.slots.length) {
      p.slots = grown(p.slots, new Int32Array(p.n * 2));
      p.tfs = grown(p.tfs, new Uint32Array(p.n * 2));
    }
    p.slots[p.n] = slot;
    p.tfs[p.n] = tf;
    p.n++;
    p.maxText = Math.max(p.maxText, tf & 0xffff);
    p.maxContext = Math.max(p.maxContext, tf >>> 16);
    return id;
  }

  /** Marks a slot dead; its postings stay until a compaction (so a rollback can revive it). */
  private kill(id: string, slot: number): void {
    if (this.classOf[slot] === DEAD) return;
    this.leave(slot);
    if (this.slotOf.get(id) === slot) this.slotOf.delete(id);
    this.dead++;
    if (!this.journal) this.maybeCompact();
  }

  private revive(id: string, slot: number): void {
    if (this.classOf[slot] !== DEAD) return;
    this.enter(slot);
    this.slotOf.set(id, slot);
    this.dead--;
  }

  private maybeCompact(): void {
    if (this.journal || this.dead < 1024 || this.dead * 4 < this.used) return;
    this.materialize();
    // Live slots move down in order; postings keep their order, so scores and ties are unchanged.
    const moved = new Int32Array(this.used).fill(-1);
    const docTerms = new Int32Array(this.docTerms.length);
    let termsUsed = 0;
    let live = 0;
    for (let s = 0; s < this.used; s++) {
      if (this.classOf[s] === DEAD) continue;
      moved[s] = live;
      this.scope[live] = this.scope[s]!;
      this.classOf[live] = this.classOf[s]!;
      this.textLength[live] = this.textLength[s]!;
      this.contextLength[live] = this.contextLength[s]!;
      for (const c of this.columns) {
        c.labels[live] = c.labels[s]!;
        c.numbers[live] = c.numbers[s]!;
      }
      docTerms.set(this.docTerms.subarray(this.termStart[s]!, this.termStart[s]! + this.termCount[s]!), termsUsed);
      this.termStart[live] = termsUsed;
      this.termCount[live] = this.termCount[s]!;
      termsUsed += this.termCount[s]!;
      this.ids[live] = this.ids[s];
      this.slotOf.set(this.ids[s]!, live);
      live++;
    }
    this.ids.length = live;
    this.docTerms = docTerms;
    this.docTermsUsed = termsUsed;
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
    this.classOf.fill(DEAD, live, this.used);
    this.used = live;
    this.dead = 0;
  }

  /**
   * Builds what `fromBytes` leaves out until a write needs it: the slot of each id, and each slot's
   * term ids (from the postings, which hold the same pairs), for the class counts of a write.
   */
  private materialize(): void {
    if (!this.lazy) return;
    this.lazy = false;
    for (let s = 0; s < this.used; s++) if (this.classOf[s] !== DEAD) this.slotOf.set(this.ids[s]!, s);
    const count = this.termCount;
    count.fill(0);
    let total = 0;
    for (const p of this.postings) {
      for (let i = 0; i < p.n; i++) count[p.slots[i]!]!++;
      total += p.n;
    }
    let at = 0;
    for (let s = 0; s < this.used; s++) {
      this.termStart[s] = at;
      at += count[s]!;
    }
    const fill = new Int32Array(this.used);
    this.docTerms = new Int32Array(Math.max(8192, total));
    this.postings.forEach((p, term) => {
      for (let i = 0; i < p.n; i++) {
        const s = p.slots[i]!;
        this.docTerms[this.termStart[s]! + fill[s]!++] = term;
      }
    });
    this.docTermsUsed = total;
  }

  /**
   * The whole index as bytes (journal excluded: call between transactions), so a
   * backend can keep it in its file and `fromBytes` it on open instead of
   * tokenizing every record again. A JSON header (ids, terms, labels, scopes,
   * classes) then the typed arrays, each 8-byte aligned.
   */
  toBytes(): Uint8Array {
    const used = this.used;
    const terms = [...this.termIds.keys()]; // in id order: ids are given in insertion order
    const meta = new Int32Array(this.postings.length * 4);
    let slotsTotal = 0;
    let dfTotal = 0;
    this.postings.forEach((p, i) => {
      meta[i * 4] = p.n;
      meta[i * 4 + 1] = p.maxText;
      meta[i * 4 + 2] = p.maxContext;
      meta[i * 4 + 3] = p.df.length;
      slotsTotal += p.n;
      dfTotal += p.df.length;
    });
    const slots = new Int32Array(slotsTotal);
    const tfs = new Uint32Array(slotsTotal);
    const df = new Int32Array(dfTotal);
    let at = 0;
    let dfAt = 0;
    for (const p of this.postings) {
      slots.set(p.slots.subarray(0, p.n), at);
      tfs.set(p.tfs.subarray(0, p.n), at);
      at += p.n;
      df.set(p.df, dfAt);
      dfAt += p.df.length;
    }
    // Frequencies of one byte each (nearly always) in two bytes instead of four.
    let narrow = true;
    for (let i = 0; i < tfs.length && narrow; i++) narrow = (tfs[i]! & 0xff00ff00) === 0;
    let tfBytes: Uint32Array | Uint16Array = tfs;
    if (narrow) {
      tfBytes = new Uint16Array(tfs.length);
      for (let i = 0; i < tfs.length; i++) tfBytes[i] = (tfs[i]! & 0xff) | ((tfs[i]! >>> 16) << 8);
    }
    // A column's labels only when some value is not a number, its numbers only when some is (else empty).
    const columnParts = this.columns.flatMap((c) => {
      let labelled = false;
      let numeric = false;
      for (let s = 0; s < used; s++) {
        if (c.labels[s] === -1) numeric = true;
        else labelled = true;
      }
      return [
        labelled ? c.labels.subarray(0, used) : new Int32Array(0),
        numeric ? c.numbers.subarray(0, used) : new Float64Array(0),
      ];
    });
    // Ids one a line when none holds a line break (a split is much cheaper than JSON.parse), else JSON.
    const idList = this.ids.slice(0, used).map((id) => id ?? '');
    const lines = !idList.some((id) => id.includes('\n'));
    const ids = new TextEncoder().encode(lines ? idList.join('\n') : JSON.stringify(idList));
    const arrays: ArrayBufferView[] = [
      this.scope.subarray(0, used),
      this.textLength.subarray(0, used),
      this.contextLength.subarray(0, used),
      this.classOf.subarray(0, used),
      ids,
      ...columnParts,
      meta,
      slots,
      tfBytes,
      df,
    ];
    const header = new TextEncoder().encode(
      JSON.stringify({
        format: 3,
        narrow,
        columns: this.columns.map((c) => c.key),
        used,
        dead: this.dead,
        lines,
        terms,
        labels: this.labels,
        scopeTenants: this.scopeTenants,
        scopeNamespaces: this.scopeNamespaces,
        classScope: this.classScope,
        classValues: this.classValues,
        classN: this.classN,
        classText: this.classText,
        classContext: this.classContext,
        lengths: arrays.map((a) => a.byteLength),
      }),
    );
    const pad = (n: number) => (n + 7) & ~7;
    let size = 8 + pad(header.length);
    for (const a of arrays) size += pad(a.byteLength);
    const out = new Uint8Array(size);
    new DataView(out.buffer).setUint32(0, header.length, true);
    out.set(header, 8);
    let offset = 8 + pad(header.length);
    for (const a of arrays) {
      out.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), offset);
      offset += pad(a.byteLength);
    }
    return out;
  }

  /**
   * An index from `toBytes`' output; undefined when the bytes are of another
   * format or other columns (the caller rebuilds from its records).
   */
  static fromBytes(bytes: Uint8Array, options: { columns?: readonly string[] } = {}): KeywordIndex | undefined {
    // Typed arrays need aligned offsets: work on an aligned copy.
    const data: Uint8Array<ArrayBuffer> =
      bytes.byteOffset % 8 === 0 && bytes.buffer instanceof ArrayBuffer
        ? (bytes as Uint8Array<ArrayBuffer>)
        : new Uint8Array(bytes);
    if (data.byteLength < 8) return undefined;
    const headerLength = new DataView(data.buffer, data.byteOffset, 8).getUint32(0, true);
    const h = JSON.parse(new TextDecoder().decode(data.subarray(8, 8 + headerLength))) as {
      format: number;
      columns: string[];
      used: number;
      dead: number;
      lines: boolean;
      narrow: boolean;
      terms: string[];
      labels: AttributeValue[];
      scopeTenants: string[];
      scopeNamespaces: string[];
      classScope: number[];
      classValues: AttributeValue[][];
      classN: number[];
      classText: number[];
      classContext: number[];
      lengths: number[];
    };
    const index = new KeywordIndex(options);
    if (h.format !== 3 || JSON.stringify(h.columns) !== JSON.stringify(index.columns.map((c) => c.key)))
      return undefined;
    const pad = (n: number) => (n + 7) & ~7;
    let offset = data.byteOffset + 8 + pad(headerLength);
    let next = 0;
    const take = <T>(make: (buffer: ArrayBuffer, offset: number, length: number) => T, width: number): T => {
      const length = h.lengths[next++]!;
      const view = make(data.buffer, offset, length / width);
      offset += pad(length);
      return view;
    };
    const i32 = () => take((b, o, n) => new Int32Array(b, o, n), 4);
    const u32 = () => take((b, o, n) => new Uint32Array(b, o, n), 4);
    const f64 = () => take((b, o, n) => new Float64Array(b, o, n), 8);
    const used = h.used;
    const capacity = Math.max(1024, used);
    const sized = <T extends Int32Array | Uint32Array | Float64Array>(view: T, to: T): T => grown(view, to);
    index.scope = sized(i32(), new Int32Array(capacity));
    index.textLength = sized(u32(), new Uint32Array(capacity));
    index.contextLength = sized(u32(), new Uint32Array(capacity));
    index.classOf = sized(i32(), new Int32Array(capacity));
    const idBytes = take((b, o, n) => new Uint8Array(b, o, n), 1);
    const idText = new TextDecoder().decode(idBytes);
    const ids: string[] = used === 0 ? [] : h.lines ? idText.split('\n') : JSON.parse(idText);
    index.termStart = new Int32Array(capacity);
    index.termCount = new Int32Array(capacity);
    for (const c of index.columns) {
      const labels = i32();
      const numbers = f64();
      c.labels =
        labels.length > 0 ? sized(labels, new Int32Array(capacity)) : new Int32Array(capacity).fill(-1, 0, used);
      c.numbers =
        numbers.length > 0 ? sized(numbers, new Float64Array(capacity)) : new Float64Array(capacity).fill(Number.NaN);
    }
    const meta = i32();
    const slots = i32();
    let tfs: Uint32Array;
    if (h.narrow) {
      const packed = take((b, o, n) => new Uint16Array(b, o, n), 2);
      tfs = new Uint32Array(packed.length);
      for (let i = 0; i < packed.length; i++) tfs[i] = (packed[i]! & 0xff) | ((packed[i]! >>> 8) << 16);
    } else {
      tfs = u32();
    }
    const df = i32();
    let at = 0;
    let dfAt = 0;
    h.terms.forEach((term, i) => {
      const n = meta[i * 4]!;
      const dfLength = meta[i * 4 + 3]!;
      index.termIds.set(term, i);
      // Views of the restored buffer: a posting that grows is copied out first (post), compaction
      // rewrites only its own range.
      index.postings.push({
        slots: slots.subarray(at, at + n),
        tfs: tfs.subarray(at, at + n),
        n,
        df: df.subarray(dfAt, dfAt + dfLength),
        maxText: meta[i * 4 + 1]!,
        maxContext: meta[i * 4 + 2]!,
      });
      at += n;
      dfAt += dfLength;
    });
    index.ids = ids;
    index.lazy = true;
    h.labels.forEach((label, i) => {
      index.labels.push(label);
      index.labelIds.set(JSON.stringify(label), i);
    });
    h.scopeTenants.forEach((tenant, i) => {
      index.scopeTenants.push(tenant);
      index.scopeNamespaces.push(h.scopeNamespaces[i]!);
      index.scopeIds.set(`${tenant}\u0000${h.scopeNamespaces[i]}`, i);
    });
    index.classScope.length = 0;
    index.classValues.length = 0;
    index.classN.length = 0;
    index.classText.length = 0;
    index.classContext.length = 0;
    h.classScope.forEach((scope, c) => {
      index.classScope.push(scope);
      index.classValues.push(h.classValues[c]!);
      index.classN.push(h.classN[c]!);
      index.classText.push(h.classText[c]!);
      index.classContext.push(h.classContext[c]!);
      if (c !== DEAD) index.classIds.set(`${scope}\u0000${JSON.stringify(h.classValues[c])}`, c);
    });
    index.used = used;
    index.dead = h.dead;
    return index;
  }

  private grow(): void {
    const size = this.scope.length * 2;
    this.scope = grown(this.scope, new Int32Array(size));
    this.classOf = grown(this.classOf, new Int32Array(size));
    this.termStart = grown(this.termStart, new Int32Array(size));
    this.termCount = grown(this.termCount, new Int32Array(size));
    this.textLength = grown(this.textLength, new Uint32Array(size));
    this.contextLength = grown(this.contextLength, new Uint32Array(size));
    for (const c of this.columns) {
      c.labels = grown(c.labels, new Int32Array(size));
      c.numbers = grown(c.numbers, new Float64Array(size));
    }
  }
}

/** The k best slots by (score desc, id asc) seen so far: a heap whose root is the worst kept. */
class TopK {
  private readonly heap: number[] = [];

  constructor(
    private readonly k: number,
    /** Scores by slot, written here for the slots offered. */
    private readonly scores: Float64Array,
    private readonly ids: readonly (string | undefined)[],
  ) {}

  get full(): boolean {
    return this.heap.length === this.k;
  }

  /** The k-th score once full (a document scoring below it cannot enter). */
  get threshold(): number {
    return this.full ? this.scores[this.heap[0]!]! : Number.NEGATIVE_INFINITY;
  }

  /** Keeps the slot if it ranks among the k best; true when it was kept. */
  offer(slot: number, score: number): boolean {
    const heap = this.heap;
    if (heap.length === this.k) {
      const root = heap[0]!;
      const worst = this.scores[root]!;
      if (score < worst || (score === worst && this.ids[slot]! > this.ids[root]!)) return false;
      this.scores[slot] = score;
      heap[0] = slot;
      this.down(0);
      return true;
    }
    this.scores[slot] = score;
    heap.push(slot);
    for (let i = heap.length - 1; i > 0; ) {
      const parent = (i - 1) >> 1;
      if (!this.worse(heap[i]!, heap[parent]!)) break;
      [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
      i = parent;
    }
    return true;
  }

  /** Best first. */
  sorted(): number[] {
    return [...this.heap].sort((a, b) => (this.worse(a, b) ? 1 : this.worse(b, a) ? -1 : 0));
  }

  /** Whether a ranks below b. */
  private worse(a: number, b: number): boolean {
    const sa = this.scores[a]!;
    const sb = this.scores[b]!;
    return sa < sb || (sa === sb && this.ids[a]! > this.ids[b]!);
  }

  private down(i: number): void {
    const heap = this.heap;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < heap.length && this.worse(heap[l]!, heap[m]!)) m = l;
      if (r < heap.length && this.worse(heap[r]!, heap[m]!)) m = r;
      if (m === i) return;
      [heap[i], heap[m]] = [heap[m]!, heap[i]!];
      i = m;
    }
  }
}

/** The first position at or after `from` whose slot is >= s (postings are in slot order): galloping, then binary search. */
function gallop(slots: Int32Array, from: number, n: number, s: number): number {
  if (from >= n || slots[from]! >= s) return from;
  let step = 1;
  let lo = from;
  let hi = from + 1;
  while (hi < n && slots[hi]! < s) {
    lo = hi;
    step *= 2;
    hi = from + step;
  }
  if (hi > n) hi = n;
  // slots[lo] < s; slots[hi] >= s or hi === n.
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (slots[mid]! < s) lo = mid;
    else hi = mid;
  }
  return hi;
}

function grown<T extends Int32Array | Uint32Array | Float64Array>(from: T, to: T): T {
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
