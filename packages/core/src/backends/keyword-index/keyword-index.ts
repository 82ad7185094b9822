// The in-process BM25F index every embedded backend keeps beside its records. It is rebuilt from the
// records when a store opens, or restored from `toParts()` (SQLite keeps those parts so a cold open
// with many memories does not re-tokenise every one of them before the first recall, and reads only
// the parts its searches need). Past ~700 lines because the writes, the search's statistics, the
// compaction, the saved parts and the catch-up of a restored index (id buckets, postings and
// attributes waiting beside the unread saved ones) all work on the same private typed arrays. The
// rooms beside it: ascii-words.ts (ASCII text to term ids), ranking.ts (the MaxScore and
// term-at-a-time loops), score-block.ts (a search's scores and scratch, its loops in WebAssembly),
// top-k.ts (the k best, ties by id), columns.ts (attribute columns and their tests), postings.ts (a
// term's postings as writes grow them), packed.ts (the saved parts' bytes).

import type { AttributeCondition, AttributeValue, RecordFilter } from '../../contracts';
import { keywordTerms } from '../../text/keyword-terms';
import { matchesCondition } from '../match-filter';
import { type Column, type ColumnTest, numberTest, passes } from './columns';
import {
  bucketOf,
  idRanks,
  narrowed,
  type PackedArray,
  type Posting,
  pack,
  packPostings,
  packStrings,
  sameBytes,
  unpack,
  unpackPostings,
  unpackStrings,
  widened,
} from './packed';
import { appended, countDf, EMPTY_POSTING, emptyPosting, grown } from './postings';
import { type Cursor, cursors, type ScoredDocs, walkMaxScore } from './ranking';
import { ScoreBlock } from './score-block';
import { gallop, TopK } from './top-k';
import { AsciiWords } from './ascii-words';

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
/** The slots an index has room for at first (see `scope`). */
const INITIAL_SLOTS = 16;
/** Class 0 holds no document: the class of dead slots. */
const DEAD = 0;

/** The saved format `toParts` writes and `fromParts` reads (another: a rebuild). */
const PARTS_FORMAT = 6;
/** The previous format, still read: the same parts without the id buckets (a write finds a saved id by the id order). */
const PARTS_FORMAT_NO_ID_BUCKETS = 5;
/** Postings bytes per saved part, about: a query reads the parts of its terms only. */
const BUCKET_BYTES = 8192;
/** Ids per saved part: a search reads the parts of the slots it returns. */
const ID_BLOCK = 64;
/** Ties are ordered by their ids when their id parts number at most one for this many saved documents. */
const TIED_IDS_PER_PART = 4096;
/** Postings entries (the query terms' together) up to which a search goes term at a time instead of by MaxScore. */
const TERM_AT_A_TIME = 16_384;
/**
 * Parts: the documents' lengths and classes (read at once), their scopes and attribute columns, the
 * order of their ids, then the id blocks, then the postings buckets, then the id buckets (each live
 * id with its slot, found by a hash of the id: a write finds whether its id is saved in one read).
 */
const DOCS_PART = 0;
const ATTRIBUTES_PART = 1;
const RANK_PART = 2;
const FIRST_ID_PART = 3;

/** The header of a saved index: what a search needs besides postings, and how many parts of each kind follow. */
interface PartsHeader {
  format: number;
  columns: string[];
  used: number;
  dead: number;
  terms: number;
  buckets: number;
  idParts: number;
  /** Format 6 on: parts of (id, slot) by a hash of the id; 0 (format 5): none. */
  idBuckets?: number;
  labels: AttributeValue[];
  scopeTenants: string[];
  scopeNamespaces: string[];
  classScope: number[];
  classValues: AttributeValue[][];
  classN: number[];
  classText: number[];
  classContext: number[];
}

/**
 * A saved part of a restored index could not be read (gone with a newer save) or decoded: the
 * caller drops the index and loads again (or rebuilds from its records).
 */
export class KeywordPartError extends Error {
  override readonly name = 'KeywordPartError';
}

/** Term frequencies are kept in 16 bits per field; BM25 saturation makes anything above indistinguishable. */
const MAX_TF = 0xffff;

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
  /*
   * The arrays a write grows start small (INITIAL_SLOTS) so that they first grow in a bulk write's
   * first documents, before V8 compiles the write path: a first growth after that threw the compile
   * away (a field stored once is compiled as a constant) or deoptimized it (a branch never run has
   * no type feedback), in a fresh process's first bulk write (issue 30: ~75 ms of a compiler
   * thread's work on `set` lost).
   */
  private scope = new Int32Array(INITIAL_SLOTS);
  private textLength: Uint32Array<ArrayBufferLike> = new Uint32Array(INITIAL_SLOTS);
  private contextLength: Uint32Array<ArrayBufferLike> = new Uint32Array(INITIAL_SLOTS);
  /** The class of each slot; DEAD once removed (its postings stay until a compaction). */
  private classOf: Int32Array<ArrayBufferLike> = new Int32Array(INITIAL_SLOTS);
  /** Each slot's term ids: `termCount[s]` of them from `termStart[s]` in `docTerms`. */
  private termStart: Int32Array<ArrayBufferLike> = new Int32Array(INITIAL_SLOTS);
  private termCount: Int32Array<ArrayBufferLike> = new Int32Array(INITIAL_SLOTS);
  private docTerms = new Int32Array(16 * INITIAL_SLOTS);
  private docTermsUsed = 0;
  private readonly columns: Column[];
  private readonly labelIds = new Map<string, number>();
  private readonly labels: AttributeValue[] = [];
  private readonly scopeIds = new Map<string, number>();
  private readonly scopeTenants: string[] = [];
  private readonly scopeNamespaces: string[] = [];
  private readonly classIds = new Map<string, number>();
  /** ASCII words to term ids (made at the first write of an index that reads no saved part). */
  private words: AsciiWords | undefined;
  /** Whether the last `post` gave the slot a new entry (else it counted into the slot's entry). */
  private posted = false;
  /** String attribute values' labels, beside `labelIds` (keyed by JSON): no JSON text a value written. */
  private readonly stringLabels = new Map<string, number>();
  /**
   * The class `enter` found last and what it was found for (scope, then each class column's label and
   * number): a bulk write's documents mostly share one, found again without its key's JSON.
   */
  private lastClass = -1;
  /** The scope `scopeId` found last. */
  private lastScope = -1;
  /** Columns that class documents: the first CLASS_COLUMNS, or fewer when the index holds fewer. */
  private readonly classColumns: number;
  private readonly lastClassKey = new Float64Array(1 + 2 * CLASS_COLUMNS);
  /** Per class: its scope, its class-column values, document count and total field lengths. */
  private readonly classScope: number[] = [-1];
  private readonly classValues: AttributeValue[][] = [[]];
  private readonly classN: number[] = [0];
  private readonly classText: number[] = [0];
  private readonly classContext: number[] = [0];
  private used = 0;
  private dead = 0;
  /**
   * The undo steps of the open journal (undefined: none open): a slot a write took (undone by killing
   * it: no closure a document written) or a step to call. One array kept across journals: a new one
   * each transaction made the optimized write path deoptimize on its first use (issue 30).
   */
  private journal: (number | (() => void))[] | undefined;
  private readonly undoSteps: (number | (() => void))[] = [];
  /** Restored by fromParts: slotOf and each slot's term list (only writes need them) are not built yet. */
  private lazy = false;
  /** Whether `ids` holds ids read from saved parts (slices of a part's text; see `toParts`). */
  private idsRestored = false;
  /** A restored index's saved parts not read yet come from here (undefined once all are read). */
  private reader: ((part: number) => Uint8Array) | undefined;
  private readMany: ((parts: readonly number[]) => Uint8Array[]) | undefined;
  private parts: PartsHeader | undefined;
  /** Which id blocks and postings buckets of a restored index are read, and its attribute columns. */
  /** A restored index's id blocks read so far, and its terms' postings (arrays are built whole once all are read: a sized holey array costs ~5 ms at 100k). */
  private idBlocks: (string[] | undefined)[] = [];
  private lazyPostings = new Map<number, Posting>();
  private bucketLoaded = new Uint8Array(0);
  private attributesLoaded = false;
  /** Where `readAhead` goes on in the id blocks and postings buckets. */
  private idCursor = 0;
  private bucketCursor = 0;
  /**
   * A restored index's order of its slots' ids (rank by slot): ties go by it without reading ids. A
   * write's slot has no rank (ties with it compare ids); dropped when the index is built whole (`materialize`).
   */
  private idRank: PackedArray | undefined;
  /** A restored index's saved slots and terms (the header's); slots and term ids past them are its writes'. */
  private savedUsed = 0;
  private savedTerms = 0;
  /** The ids of the slots a restored index took past its saved ones, from `savedUsed`. */
  private newIds: string[] = [];
  /** Term ids a restored index gave to terms its parts do not hold, from `savedTerms`. */
  private newTerms = 0;
  /**
   * Saved slots a write of a lazy index took out of their class or moved (a rewrite, delete or patch),
   * with their class as saved: their terms are unknown until the postings are all read, so the
   * postings' document frequencies stay as saved and a search corrects them for these slots.
   */
  private touched = new Map<number, number>();
  /** Each saved slot by the rank of its id (rank's inverse): finds a saved id's slot by binary search (format 5). */
  private bySavedRank: Int32Array | undefined;
  /** The id buckets of a restored index read so far: id -> its live saved slot. */
  private idBucketsRead = new Map<number, Map<string, number>>();
  /**
   * The slot of the attribute arrays' first entry: a restored index's saved slots until its attribute
   * part is read (its writes' slots fill small arrays of their own), then 0.
   */
  private attrBase = 0;
  /**
   * Postings of a restored index's writes for terms whose saved bucket is not read yet, under ids
   * -1, -2, … (`pendingPostings[-id - 1]`): a write appends to them instead of reading the term's
   * saved postings (~17 KB a term at 1M documents). Reading the bucket (a search of the term, the
   * read-ahead, a save) appends them to the saved postings, whose slots all come before theirs;
   * `pendingResolved` then holds each one's term id.
   */
  private pendingIds = new Map<string, number>();
  private pendingPostings: Posting[] = [];
  private pendingResolved: number[] = [];
  /** The pending terms of each bucket not read yet. */
  private pendingByBucket = new Map<number, string[]>();
  // Per-search scratch, reused.
  private admitted = new Uint8Array(0);
  /** The scores by slot, and a term-at-a-time search's marks, matched slots and kernels (WebAssembly). */
  private readonly block: ScoreBlock;
  private identitySlots = new Int32Array(0);
  private readonly termAtATimeMax: number;

  constructor(
    options: {
      /** Attributes held per document for filtering (the first two also class documents); others need `admit`. */
      columns?: readonly string[];
      /** Postings entries up to which a search goes term at a time (default 16,384; 0: always MaxScore). Same results either way. */
      termAtATime?: number;
      /** Whether the loops after a term-at-a-time scoring may run in WebAssembly (default true; false: JS, for tests). */
      wasm?: boolean;
    } = {},
  ) {
    this.termAtATimeMax = options.termAtATime ?? TERM_AT_A_TIME;
    this.block = new ScoreBlock(options.wasm ?? true);
    this.columns = (options.columns ?? KEYWORD_INDEX_COLUMNS).map((key) => ({
      key,
      labels: new Int32Array(INITIAL_SLOTS),
      numbers: new Float64Array(INITIAL_SLOTS),
    }));
    this.classColumns = Math.min(CLASS_COLUMNS, this.columns.length);
  }

  /** Documents indexed (records with at least one term). */
  get size(): number {
    let n = 0; // the live slots: those in a class (one per id)
    for (let c = 1; c < this.classN.length; c++) n += this.classN[c]!;
    return n;
  }

  /** Indexes (or re-indexes) a record; one without terms is not a document, as in FTS5. */
  set(id: string, doc: KeywordDocument): void {
    // ASCII text (nearly all) goes to term ids by the word table (`AsciiWords`: the same terms), other text
    // by `keywordTerms`. The context by the table only when the text went by it: new terms take their
    // ids in the order they first occur, text then context, either way. A restored index whose parts
    // are not all read finds its terms' ids by `post` (pending ones, ids resolved later).
    if (!this.reader) this.words ??= new AsciiWords((term) => this.termFor(term));
    const words = this.reader ? undefined : this.words;
    // The table's scan says when text is not ASCII (-1): then `keywordTerms` (and for the context too).
    let terms: string[] | undefined;
    let contextTerms: string[] | undefined;
    let textCount = words ? words.scan(doc.text, 0) : -1;
    if (textCount < 0) {
      terms = keywordTerms(doc.text);
      textCount = terms.length;
    }
    let contextCount = 0;
    if (doc.context) {
      const end = terms ? -1 : words!.scan(doc.context, textCount);
      if (end >= 0) contextCount = end - textCount;
      else {
        contextTerms = keywordTerms(doc.context);
        contextCount = contextTerms.length;
      }
    }
    const before = this.prepareWrite(id, false);
    if (before !== undefined) {
      const c = this.classOf[before]!;
      this.kill(id, before);
      this.journal?.push(() => this.revive(id, before, c));
    }
    if (textCount + contextCount === 0) return;
    if (this.used === this.classOf.length) this.grow();
    if (this.used - this.attrBase === this.scope.length) this.growAttributes();
    const slot = this.used++;
    if (this.reader) this.newIds[slot - this.savedUsed] = id;
    else this.ids[slot] = id;
    this.slotOf.set(id, slot);
    this.scope[slot - this.attrBase] = this.scopeId(doc.tenant, doc.namespace);
    this.textLength[slot] = textCount;
    this.contextLength[slot] = contextCount;
    for (const column of this.columns) this.writeColumn(column, slot, doc.attributes[column.key] ?? null);
    const most = textCount + contextCount; // distinct terms, at most
    if (this.docTermsUsed + most > this.docTerms.length) {
      const size = Math.max(this.docTerms.length * 2, this.docTermsUsed + most);
      this.docTerms = grown(this.docTerms, new Int32Array(size));
    }
    // Each term's frequency is counted in its posting's last entry, this slot's (no map of a document's
    // terms: it was most of a bulk write's garbage here), and the class's document frequency with the
    // entry (as `enter` counts it, without a second pass over the postings); its terms listed in order
    // of first occurrence.
    const c = this.classFor(slot);
    this.termStart[slot] = this.docTermsUsed;
    // ASCII text and context: one loop over the table's ids (text's, then context's), not one a field:
    // one copy of `postId` in the compiled write path instead of two (a fresh process compiles `set` once,
    // on another thread, while its first bulk write runs). Other text by its term lists.
    if (terms === undefined && contextTerms === undefined) this.postIds(words!.ids, textCount, contextCount, slot, c);
    else {
      const ids = words?.ids;
      for (let i = 0; i < textCount; i++) {
        const term = terms ? this.post(terms[i]!, slot, 1, c) : this.postId(ids![i]!, slot, 1, c);
        if (this.posted) this.docTerms[this.docTermsUsed++] = term;
      }
      for (let i = 0; i < contextCount; i++) {
        const term = contextTerms
          ? this.post(contextTerms[i]!, slot, 0x10000, c)
          : this.postId(ids![textCount + i]!, slot, 0x10000, c);
        if (this.posted) this.docTerms[this.docTermsUsed++] = term;
      }
    }
    this.termCount[slot] = this.docTermsUsed - this.termStart[slot]!;
    this.count(slot, c);
    this.journal?.push(slot);
  }

  /** Rewrites the filterable attributes of a document (a patch), merged key by key; a key set to undefined is missing. */
  setAttributes(id: string, attributes: Readonly<Record<string, AttributeValue | undefined>>): void {
    const slot = this.prepareWrite(id, true);
    if (slot === undefined) return;
    const changed = this.columns.filter((c) => Object.hasOwn(attributes, c.key));
    if (changed.length === 0) return;
    const at = slot - this.attrBase; // a patch of a saved slot read the attributes (prepareWrite): 0 then
    const before = changed.map((c) => [c.labels[at]!, c.numbers[at]!] as const);
    this.leave(slot);
    for (const column of changed) this.writeColumn(column, slot, attributes[column.key] ?? null);
    this.enter(slot);
    this.journal?.push(() => {
      this.leave(slot);
      changed.forEach((c, i) => {
        c.labels[at] = before[i]![0];
        c.numbers[at] = before[i]![1];
      });
      this.enter(slot);
    });
  }

  remove(id: string): void {
    const slot = this.prepareWrite(id, false);
    if (slot === undefined) return;
    const c = this.classOf[slot]!;
    this.kill(id, slot);
    this.journal?.push(() => this.revive(id, slot, c));
  }

  /**
   * What a write of `id` reads of a restored index, before it changes anything (so a part that cannot
   * be read leaves the index as it was): the id bucket of `id` (is it saved, in which slot), and the
   * attribute columns when it patches a saved document's (`attributes`); the cost of the document,
   * not of the index. Its terms' saved postings are not read: its own go to pending postings (`post`).
   * A saved slot it takes out of its class is `touched`: taking it out of its terms' document
   * frequencies needs its terms, which only the postings hold (see `dfIn`).
   */
  private prepareWrite(id: string, attributes: boolean): number | undefined {
    if (!this.lazy) return this.slotOf.get(id);
    const slot = this.slotOf.get(id) ?? this.savedSlot(id);
    if (attributes && slot !== undefined && slot < this.savedUsed) this.loadAttributes();
    // A saved slot about to leave or change its class: its class as saved, for the searches' correction.
    if (slot !== undefined && slot < this.savedUsed && !this.touched.has(slot))
      this.touched.set(slot, this.classOf[slot]!);
    return slot;
  }

  /** Folds the touched slots' class changes into the document frequencies: one pass over every posting (all read). */
  private foldTouched(): void {
    if (this.touched.size === 0) return;
    const saved = new Int32Array(this.used).fill(-1);
    for (const [slot, c] of this.touched) saved[slot] = c;
    for (const p of this.postings) {
      for (let i = 0; i < p.n; i++) {
        const s = p.slots[i]!;
        const was = saved[s]!;
        if (was === -1) continue;
        const now = this.classOf[s]!;
        if (was === now) continue;
        if (was !== DEAD) p.df[was]!--;
        if (now !== DEAD) {
          if (p.df.length <= now) p.df = grown(p.df, new Int32Array(Math.max(now + 1, p.df.length * 2)));
          p.df[now]!++;
        }
      }
    }
    this.touched.clear();
  }

  /** The document frequency of a posting among the admitted classes, corrected for the touched saved slots. */
  private dfIn(p: Posting, classOk: Uint8Array): number {
    let d = 0;
    for (let c = 1; c < classOk.length && c < p.df.length; c++) if (classOk[c] === 1) d += p.df[c]!;
    for (const [slot, was] of this.touched) {
      const at = gallop(p.slots, 0, p.n, slot);
      if (at === p.n || p.slots[at] !== slot) continue;
      d += classOk[this.classOf[slot]!]! - classOk[was]!; // classOk[DEAD] is 0
    }
    return d;
  }

  /**
   * The live saved slot holding `id` in a lazy index: from its id bucket (format 6), else (format 5, or
   * once every part is read) by binary search over the saved id order.
   */
  private savedSlot(id: string): number | undefined {
    const n = this.savedUsed;
    if (n === 0) return undefined;
    const idBuckets = this.parts?.idBuckets ?? 0;
    if (idBuckets > 0) {
      const bucket = bucketOf(id, idBuckets);
      const slots = this.idBucketsRead.get(bucket) ?? this.loadIdBucket(bucket);
      const slot = slots.get(id);
      // Killed by a write since the load (a delete, or a rewrite whose slot is in slotOf): not saved any more.
      return slot !== undefined && this.classOf[slot] !== DEAD ? slot : undefined;
    }
    if (!this.bySavedRank) {
      const rank = this.idRank ?? this.loadRank();
      const bySavedRank = new Int32Array(n);
      for (let s = 0; s < n; s++) bySavedRank[rank[s]!] = s;
      this.bySavedRank = bySavedRank;
    }
    const order = this.bySavedRank;
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.idAt(order[mid]!) < id) lo = mid + 1;
      else hi = mid;
    }
    // A rewritten id leaves dead slots beside its live one: the live one, if any.
    for (let r = lo; r < n && this.idAt(order[r]!) === id; r++) if (this.classOf[order[r]!] !== DEAD) return order[r];
    return undefined;
  }

  /** Starts journaling writes (or returns the position inside an open journal, for a savepoint). */
  begin(): number {
    if (!this.journal) {
      this.undoSteps.length = 0;
      this.journal = this.undoSteps;
    }
    return this.journal.length;
  }

  /** Undoes the journaled writes after `mark` (a savepoint; journaling goes on), or all of them and ends the journal. */
  rollback(mark?: number): void {
    const journal = this.journal;
    if (!journal) return;
    while (journal.length > (mark ?? 0)) {
      const step = journal.pop()!;
      if (typeof step === 'number') this.kill(this.idAt(step), step);
      else step();
    }
    if (mark === undefined) this.journal = undefined;
  }

  /** Keeps the journaled writes and stops journaling. */
  commit(): void {
    this.journal = undefined;
    this.undoSteps.length = 0;
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
      const id = this.termId(term);
      if (id !== undefined) postings.push(this.posting(id));
    }
    if (postings.length === 0) return [];
    if (filter.namespaces && filter.namespaces.length === 0) return [];
    const holds = this.holds(filter);
    if (!holds && !admit)
      throw new Error('KeywordIndex.search: this filter tests attributes the index does not hold; pass admit.');
    const { classOk, rest } = this.compile(filter);
    if (rest.length > 0) this.loadAttributes();
    if (!holds) for (let b = 0; this.reader && b < this.idBlocks.length; b++) if (!this.idBlocks[b]) this.loadIds(b);
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
      for (const p of postings) df.push(this.dfIn(p, classOk));
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
        if (!holds && !admit!(this.idAt(s))) continue;
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
    const terms = cursors(postings, df, n, avgText, avgContext);
    let total = 0;
    for (const t of terms) total += t.n;
    const docs: ScoredDocs = {
      avgText,
      avgContext,
      ok,
      at,
      textLength: this.textLength,
      contextLength: this.contextLength,
    };
    if (total <= this.termAtATimeMax) return this.termAtATime(terms, docs, k);
    this.block.reserve(this.used, 0);
    const heap = new TopK(
      k,
      this.block.scores,
      (a, b) => this.after(a, b),
      (slots) => this.readTiedIds(slots),
    );
    walkMaxScore(terms, postings.length, docs, heap);
    return this.matches(heap.sorted());
  }

  /**
   * The same k best as `maxScore`, one term at a time (in query order, so each score adds the same
   * parts in the same order) into the scores by slot, then every matched slot offered once: for short
   * postings, where MaxScore skips little. Its loops are a few operations an entry, which is what a
   * cold process pays for: its first search runs them in V8's interpreter (MaxScore's loop: ~10 ms for
   * 4,700 entries there, issue 30).
   */
  private termAtATime(terms: readonly Cursor[], docs: ScoredDocs, k: number): KeywordMatch[] {
    let total = 0;
    for (const t of terms) total += t.n;
    const block = this.block;
    block.reserve(this.used, total);
    const scores = block.scores;
    const m = block.score(terms, docs);
    // Only the slots scoring at least the k-th best score can be kept: the heap sees those (k and its
    // ties) instead of every match, each offer a few calls the interpreter pays for. The scoring and
    // both loops run in WebAssembly (score-block.ts): in JS a cold first search made each float64 a
    // step computes or reads a new heap number.
    const passing = block.atLeast(m, block.kth(m, k));
    let after = (x: number, y: number) => this.after(x, y);
    if (this.reader && !this.idRank) {
      // Ties go by id. A restored index that has not read its id order (a part of 2-4 bytes a document:
      // ~1 ms of a first search at 100k) compares the candidates' ids instead when they are few against
      // the documents: their id parts are mostly those the k best need anyway. The same order (the id
      // order is the ids' own).
      const most = Math.min(2 * k, Math.floor(this.savedUsed / (8 * ID_BLOCK)));
      if (passing.length <= most) {
        this.readIdsOf(Array.from(passing));
        after = (x, y) => this.idAt(x) > this.idAt(y);
      }
    }
    const heap = new TopK(k, scores, after);
    for (let i = 0; i < passing.length; i++) {
      const s = passing[i]!;
      heap.offer(s, scores[s]!);
    }
    return this.matches(heap.sorted());
  }

  /** The matches of these slots, best first: their id parts not read yet in one read. */
  private matches(slots: readonly number[]): KeywordMatch[] {
    this.readIdsOf(slots);
    const scores = this.block.scores;
    return slots.map((slot) => ({ id: this.idAt(slot), score: scores[slot]! }));
  }

  /**
   * Before the k best and their ties are ordered: a restored index that has not read its id order reads
   * these slots' id parts instead (one read) when they are few against the documents, so that `after`
   * compares their ids. A cold MaxScore search at 1M read the whole id order (4 MB, ~15 ms) for ties.
   */
  private readTiedIds(slots: readonly number[]): void {
    if (!this.reader || this.idRank) return;
    const blocks = new Set<number>();
    for (const slot of slots) if (slot < this.savedUsed) blocks.add(Math.floor(slot / ID_BLOCK));
    if (blocks.size > Math.max(2, this.savedUsed / TIED_IDS_PER_PART)) return;
    if (this.readMany) this.readIdsOf(slots);
    else for (const block of blocks) if (!this.idBlocks[block]) this.loadIds(block);
  }

  /** Reads the id parts of these slots that are not read yet, in one read when there are several. */
  private readIdsOf(slots: readonly number[]): void {
    if (!this.reader || !this.readMany) return;
    const missing: number[] = [];
    for (const slot of slots) {
      if (slot >= this.savedUsed) continue;
      const block = Math.floor(slot / ID_BLOCK);
      if (!this.idBlocks[block] && !missing.includes(block)) missing.push(block);
    }
    if (missing.length > 1) {
      const read = this.readMany;
      const parts = missing.map((b) => FIRST_ID_PART + b);
      const bytes = this.guard(`parts ${parts.join(', ')}`, () => read(parts));
      for (let i = 0; i < missing.length; i++) this.loadIds(missing[i]!, bytes[i]);
    }
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
    const at = slot - this.attrBase;
    const label = column.labels[at]!;
    return label >= 0 ? this.labels[label]! : column.numbers[at]!;
  }

  /** Puts a slot into the class of its scope and class-column values, counting it there. */
  private enter(slot: number, known?: number): void {
    const c = known ?? this.classFor(slot);
    this.count(slot, c);
    const end = this.termStart[slot]! + this.termCount[slot]!;
    for (let i = this.termStart[slot]!; i < end; i++) countDf(this.posting(this.docTerms[i]!), c);
  }

  /** The class of a slot's scope and class-column values (written before), made when new. */
  private classFor(slot: number): number {
    if (this.lastClass >= 0 && this.sameClassKey(slot)) return this.lastClass;
    const values = this.columns.slice(0, CLASS_COLUMNS).map((c) => this.value(c, slot));
    const scope = this.scope[slot - this.attrBase]!;
    const key = `${scope}\u0000${JSON.stringify(values)}`;
    let c = this.classIds.get(key);
    if (c === undefined) {
      c = this.classScope.length;
      this.classIds.set(key, c);
      this.classScope.push(scope);
      this.classValues.push(values);
      this.classN.push(0);
      this.classText.push(0);
      this.classContext.push(0);
    }
    this.rememberClassKey(slot, c);
    return c;
  }

  /** Counts a slot into its class (its terms' document frequencies apart: `enter` or `post`). */
  private count(slot: number, c: number): void {
    this.classOf[slot] = c;
    this.classN[c]!++;
    this.classText[c]! += this.textLength[slot]!;
    this.classContext[c]! += this.contextLength[slot]!;
  }

  /** Whether the slot's scope and class-column values are those `enter` found `lastClass` for. */
  private sameClassKey(slot: number): boolean {
    const key = this.lastClassKey;
    const at = slot - this.attrBase;
    if (key[0] !== this.scope[at]) return false;
    for (let i = 0; i < this.classColumns; i++) {
      const column = this.columns[i]!;
      const label = column.labels[at]!;
      // A label names one value; a number (label -1) is compared itself.
      if (key[1 + 2 * i] !== label || (label < 0 && key[2 + 2 * i] !== column.numbers[at])) return false;
    }
    return true;
  }

  private rememberClassKey(slot: number, c: number): void {
    const at = slot - this.attrBase;
    this.lastClassKey[0] = this.scope[at]!;
    for (let i = 0; i < this.classColumns; i++) {
      const column = this.columns[i]!;
      this.lastClassKey[1 + 2 * i] = column.labels[at]!;
      this.lastClassKey[2 + 2 * i] = column.numbers[at]!;
    }
    this.lastClass = c;
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
    for (let i = this.termStart[slot]!; i < end; i++) this.posting(this.docTerms[i]!).df[c]!--;
  }

  private writeColumn(column: Column, slot: number, value: AttributeValue): void {
    if (typeof value === 'number') {
      column.labels[slot - this.attrBase] = -1;
      column.numbers[slot - this.attrBase] = value;
      return;
    }
    let label = typeof value === 'string' ? this.stringLabels.get(value) : undefined;
    if (label === undefined) {
      const key = JSON.stringify(value);
      label = this.labelIds.get(key);
      if (label === undefined) {
        label = this.labels.length;
        this.labels.push(value);
        this.labelIds.set(key, label);
      }
      if (typeof value === 'string') this.stringLabels.set(value, label);
    }
    column.labels[slot - this.attrBase] = label;
    column.numbers[slot - this.attrBase] = Number.NaN;
  }

  private scopeId(tenant: string, namespace: string): number {
    // A bulk write's records share a scope: found again without a key string a record.
    const last = this.lastScope;
    if (last >= 0 && this.scopeTenants[last] === tenant && this.scopeNamespaces[last] === namespace) return last;
    this.lastScope = this.scopeIdOf(tenant, namespace);
    return this.lastScope;
  }

  private scopeIdOf(tenant: string, namespace: string): number {
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

  /**
   * Counts one occurrence of the term in the slot's document (of class c): `add` is 1 in the text, 0x10000 in the
   * context (frequencies packed text | context << 16, each at most MAX_TF). The first one appends the
   * slot to the term's postings (`posted`), later ones add to that entry: a slot being written is the
   * last of every posting that holds it (slots are taken in order and none is in a posting before).
   * Returns the term id (a pending one, negative, while its saved bucket is not read).
   */
  private post(term: string, slot: number, add: number, c: number): number {
    let id = this.termIds.get(term) ?? this.pendingIds.get(term);
    if (id === undefined && this.reader) {
      const bucket = bucketOf(term, this.parts!.buckets);
      if (this.bucketLoaded[bucket] === 0) {
        // The saved postings of the term (if any) are not read: these go beside them until they are.
        id = -1 - this.pendingPostings.length;
        this.pendingPostings.push(emptyPosting());
        this.pendingResolved.push(-1);
        this.pendingIds.set(term, id);
        const terms = this.pendingByBucket.get(bucket);
        if (terms) terms.push(term);
        else this.pendingByBucket.set(bucket, [term]);
      }
    }
    return this.postId(id ?? this.termFor(term), slot, add, c);
  }

  /** The term's id, a new one (with empty postings) when the index has none: a term no pending id holds. */
  private termFor(term: string): number {
    let id = this.termIds.get(term);
    if (id !== undefined) return id;
    const p = emptyPosting();
    if (this.reader) {
      // A restored index's new term: an id past the saved ones, its postings beside theirs.
      id = this.savedTerms + this.newTerms++;
      this.lazyPostings.set(id, p);
    } else {
      id = this.postings.length;
      this.postings.push(p);
    }
    this.termIds.set(term, id);
    return id;
  }

  /** `postId` of the text's term ids (the first `textCount` of `ids`), then of the context's (the next `contextCount`). */
  private postIds(ids: Int32Array, textCount: number, contextCount: number, slot: number, c: number): void {
    const n = textCount + contextCount;
    for (let i = 0; i < n; i++) {
      const term = this.postId(ids[i]!, slot, i < textCount ? 1 : 0x10000, c);
      if (this.posted) this.docTerms[this.docTermsUsed++] = term;
    }
  }

  /** `post` of a term by its id. */
  private postId(id: number, slot: number, add: number, c: number): number {
    const p = id >= 0 && !this.reader ? this.postings[id]! : this.posting(id);
    let at = p.n - 1;
    let tf: number;
    if (at >= 0 && p.slots[at] === slot) {
      tf = p.tfs[at]!;
      if ((add === 1 ? tf & 0xffff : tf >>> 16) < MAX_TF) p.tfs[at] = tf += add;
      this.posted = false;
    } else {
      if (p.n === p.slots.length) {
        p.slots = grown(p.slots, new Int32Array(p.n * 2));
        p.tfs = grown(p.tfs, new Uint32Array(p.n * 2));
      }
      at = p.n++;
      p.slots[at] = slot;
      p.tfs[at] = tf = add;
      countDf(p, c);
      this.posted = true;
    }
    if ((tf & 0xffff) > p.maxText) p.maxText = tf & 0xffff;
    if (tf >>> 16 > p.maxContext) p.maxContext = tf >>> 16;
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

  /** Undoes a kill: the slot goes back into the class it left (a restored index may not have read its attributes). */
  private revive(id: string, slot: number, c: number): void {
    if (this.classOf[slot] !== DEAD || c === DEAD) return;
    this.enter(slot, c);
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
   * Builds what a restored index leaves out until a compaction needs it: every part not read yet, the
   * slot of each id, and each slot's term ids (from the postings, which hold the same pairs), for the
   * class counts of a write; the touched slots' document frequencies folded in.
   */
  private materialize(): void {
    if (!this.lazy) return;
    this.loadAll();
    this.foldTouched(); // all read already before (by read-ahead): fold here
    this.lazy = false;
    this.idRank = undefined; // a write's new slot has no rank: ties go by the ids (all read now)
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
   * The whole index (journal excluded: call between transactions) as a small header and numbered
   * parts, so a backend can keep it in its file and `fromParts` it on open instead of tokenizing
   * every record again. A restored index reads a part only when it needs it: the documents' lengths
   * and classes at once, the postings of a query's terms, the ids of the slots it returns, the
   * attribute columns when a filter tests them; a write, the parts of its document (`prepareWrite`).
   */
  toParts(): { header: Uint8Array; parts: Uint8Array[] } {
    this.loadAll();
    const used = this.used;
    // Postings in buckets of about BUCKET_BYTES, found by a hash of the term.
    let postingBytes = 0;
    for (const p of this.postings) postingBytes += p.n * 6 + 16;
    const buckets = Math.min(1 << 16, Math.max(1, Math.ceil(postingBytes / BUCKET_BYTES)));
    const members: number[][] = Array.from({ length: buckets }, () => []);
    // By id (a restored index learns its terms in the order its parts were read).
    const terms: string[] = new Array(this.postings.length);
    for (const [term, id] of this.termIds) terms[id] = term;
    terms.forEach((term, id) => {
      members[bucketOf(term, buckets)]!.push(id);
    });
    const idParts = Math.ceil(used / ID_BLOCK);
    // About ID_BLOCK live ids a bucket.
    const idBuckets = Math.max(1, Math.ceil((used - this.dead) / ID_BLOCK));
    const header = new TextEncoder().encode(
      JSON.stringify({
        format: PARTS_FORMAT,
        columns: this.columns.map((c) => c.key),
        used,
        dead: this.dead,
        terms: terms.length,
        buckets,
        idParts,
        idBuckets,
        labels: this.labels,
        scopeTenants: this.scopeTenants,
        scopeNamespaces: this.scopeNamespaces,
        classScope: this.classScope,
        classValues: this.classValues,
        classN: this.classN,
        classText: this.classText,
        classContext: this.classContext,
      }),
    );
    const parts: Uint8Array[] = [];
    // A restored index's ids are slices of its id parts' text (a split): V8 compares those in its
    // runtime, each comparison of the sort a call (20k: 28-40 ms against 9-17 for flat strings, cold).
    // A flat copy first (a JSON round trip: the same strings) for the sort only.
    const rank = idRanks(
      this.idsRestored ? (JSON.parse(JSON.stringify(this.ids.slice(0, used))) as (string | null)[]) : this.ids,
      used,
    );
    parts.push(
      pack(null, [
        narrowed(this.classOf.subarray(0, used)),
        narrowed(this.textLength.subarray(0, used)),
        narrowed(this.contextLength.subarray(0, used)),
      ]),
    );
    // A column's labels only when some value is not a number, its numbers only when some is (else empty).
    const columnArrays = this.columns.flatMap((c) => {
      // Native scans first (a save's loops run cold): a number's label is -1.
      const labels = c.labels.subarray(0, used);
      const numeric = labels.indexOf(-1) >= 0;
      const labelled = used > 0 && (!numeric || !sameBytes(labels, new Int32Array(used).fill(-1)));
      return [
        labelled ? c.labels.subarray(0, used) : new Int32Array(0),
        numeric ? c.numbers.subarray(0, used) : new Float64Array(0),
      ];
    });
    parts.push(pack(null, [narrowed(this.scope.subarray(0, used)), ...columnArrays]));
    parts.push(pack(null, [narrowed(rank)]));
    for (let b = 0; b < idParts; b++) parts.push(packStrings(this.ids.slice(b * ID_BLOCK, (b + 1) * ID_BLOCK)));
    for (const ids of members)
      parts.push(
        packPostings(
          ids.map((id) => terms[id]!),
          ids,
          ids.map((id) => this.postings[id]!),
        ),
      );
    const idMembers: number[][] = Array.from({ length: idBuckets }, () => []);
    for (let s = 0; s < used; s++) if (this.classOf[s] !== DEAD) idMembers[bucketOf(this.ids[s]!, idBuckets)]!.push(s);
    for (const slots of idMembers) parts.push(pack({ ids: slots.map((s) => this.ids[s]!) }, [new Int32Array(slots)]));
    return { header, parts };
  }

  /**
   * An index from `toParts`' header, reading part `n` with `read(n)` (the first one at once, the
   * others when a search or a write needs them: `read` must give the parts of the same save for as
   * long as the index lives, or throw); undefined when the header is of another format or other
   * columns (the caller rebuilds from its records). A part that cannot be read or decoded later
   * throws a `KeywordPartError` and leaves the index as it was: the caller drops it.
   */
  static fromParts(
    header: Uint8Array,
    read: (part: number) => Uint8Array,
    options: {
      columns?: readonly string[];
      termAtATime?: number;
      wasm?: boolean;
      /** Several parts at once, in the order asked (a search's id parts in one read instead of one each); else `read` each. */
      readMany?: (parts: readonly number[]) => Uint8Array[];
    } = {},
  ): KeywordIndex | undefined {
    const h = JSON.parse(new TextDecoder().decode(header)) as PartsHeader;
    const index = new KeywordIndex(options);
    if (
      (h.format !== PARTS_FORMAT && h.format !== PARTS_FORMAT_NO_ID_BUCKETS) ||
      (h.format === PARTS_FORMAT) !== (h.idBuckets !== undefined && h.idBuckets > 0) ||
      JSON.stringify(h.columns) !== JSON.stringify(index.columns.map((c) => c.key))
    )
      return undefined;
    const used = h.used;
    // Room for the writes of a catch-up: doubling every array at the first write made it collect garbage (~40 ms at 100k).
    const capacity = used + Math.max(1024, used >> 3);
    index.reader = read;
    index.readMany = options.readMany;
    index.parts = h;
    index.lazy = true;
    const [classOf, textLength, contextLength] = index.part(DOCS_PART, (bytes) => unpack(bytes).arrays);
    if (classOf?.length !== used || textLength?.length !== used || contextLength?.length !== used)
      throw new KeywordPartError('keyword index part 0: not the documents of the header');
    // The five arrays of every slot in one block V8 does not count as external memory (a shared one):
    // 22.5 MB of ArrayBuffers at 1M, which with the dense parts' 56 MB made V8 collect garbage two or
    // three times in a cold start (a mark-compact for each ~32 MB allocated since the last). A write
    // past the capacity grows them into ordinary arrays. A page that is not cross-origin isolated has no
    // SharedArrayBuffer: an ordinary block there (the same arrays, counted as before).
    const block =
      typeof SharedArrayBuffer === 'function' ? new SharedArrayBuffer(capacity * 20) : new ArrayBuffer(capacity * 20);
    const slots = (at: number) => [block, at * capacity * 4, capacity] as const;
    index.classOf = new Int32Array(...slots(0));
    index.classOf.set(classOf);
    index.textLength = new Uint32Array(...slots(1));
    index.textLength.set(textLength);
    index.contextLength = new Uint32Array(...slots(2));
    index.contextLength.set(contextLength);
    index.termStart = new Int32Array(...slots(3));
    index.termCount = new Int32Array(...slots(4));
    index.idBlocks = Array.from({ length: h.idParts }, () => undefined);
    index.bucketLoaded = new Uint8Array(h.buckets);
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
    index.savedUsed = used;
    index.attrBase = used;
    index.savedTerms = h.terms;
    index.dead = h.dead;
    return index;
  }

  /** Part `n` decoded; any failure (a part gone with a newer save, bytes that do not decode) as a KeywordPartError. */
  private part<T>(n: number, decode: (bytes: Uint8Array) => T, given?: Uint8Array): T {
    return this.guard(`part ${n}`, () => decode(given ?? this.reader!(n)));
  }

  /** `f`, any failure of it as a KeywordPartError naming `what`. */
  private guard<T>(what: string, f: () => T): T {
    try {
      return f();
    } catch (error) {
      throw new KeywordPartError(`keyword index ${what}: ${error instanceof Error ? error.message : error}`, {
        cause: error,
      });
    }
  }

  /** The term's id, reading its postings' part first when the index was restored and it is not read yet. */
  private termId(term: string): number | undefined {
    const id = this.termIds.get(term);
    if (id !== undefined || !this.reader) return id;
    const bucket = bucketOf(term, this.parts!.buckets);
    if (this.bucketLoaded[bucket] === 1) return undefined;
    this.loadBucket(bucket);
    return this.termIds.get(term);
  }

  private loadBucket(bucket: number): void {
    const h = this.parts!;
    const loaded = this.part(FIRST_ID_PART + h.idParts + bucket, (bytes) => unpackPostings(bytes, h.terms));
    loaded.terms.forEach((term, i) => {
      this.termIds.set(term, loaded.ids[i]!);
      this.lazyPostings.set(loaded.ids[i]!, loaded.postings[i]!);
    });
    this.bucketLoaded[bucket] = 1;
    const pending = this.pendingByBucket.get(bucket);
    if (!pending) return;
    this.pendingByBucket.delete(bucket);
    for (const term of pending) {
      const k = -1 - this.pendingIds.get(term)!;
      this.pendingIds.delete(term);
      const p = this.pendingPostings[k]!;
      let id = this.termIds.get(term);
      if (id === undefined) {
        // A term no saved document holds: a new term id, as a write after the read would have taken.
        id = this.savedTerms + this.newTerms++;
        this.termIds.set(term, id);
        this.lazyPostings.set(id, p);
      } else {
        this.lazyPostings.set(id, appended(widened(this.lazyPostings.get(id)!), p));
      }
      this.pendingResolved[k] = id;
      this.pendingPostings[k] = EMPTY_POSTING;
    }
  }

  /** A term's postings, in a restored index whose parts are not all read or not; a pending id's (negative) until its bucket is read. */
  private posting(id: number): Posting {
    if (id < 0) {
      const resolved = this.pendingResolved[-1 - id]!;
      return resolved < 0 ? this.pendingPostings[-1 - id]! : this.posting(resolved);
    }
    return this.reader ? widened(this.lazyPostings.get(id)!) : this.postings[id]!;
  }

  /** Whether slot a's id sorts after slot b's: by the saved order of a restored index (no id read), else by the ids. */
  private after(a: number, b: number): boolean {
    if (!this.reader) return this.ids[a]! > this.ids[b]!;
    if (a >= this.savedUsed || b >= this.savedUsed) return this.idAt(a) > this.idAt(b); // a write's slot: no rank
    // Both ids read: compared as they are (the id order part is the ids' own order), without reading it.
    if (!this.idRank && this.idBlocks[Math.floor(a / ID_BLOCK)] && this.idBlocks[Math.floor(b / ID_BLOCK)])
      return this.idAt(a) > this.idAt(b);
    const rank = this.idRank ?? this.loadRank();
    return rank[a]! > rank[b]!;
  }

  private loadRank(): PackedArray {
    const [rank] = this.part(RANK_PART, (bytes) => unpack(bytes).arrays);
    if (rank?.length !== this.savedUsed || rank instanceof Float64Array)
      throw new KeywordPartError(`keyword index part ${RANK_PART}: not the id order of the header`);
    this.idRank = rank;
    return rank;
  }

  /**
   * Reads up to `parts` of a restored index's saved parts not read yet (in the order they were
   * written, which is the file's), so that it finishes loading over a few searches instead of
   * reading a part on every search that meets a new term or returns a new slot. True while some
   * part is left. Throws a `KeywordPartError` as the searches' reads do.
   */
  readAhead(parts: number): boolean {
    if (!this.reader) return false;
    let budget = parts;
    if (!this.attributesLoaded && budget-- > 0) this.loadAttributes();
    if (!this.idRank && budget-- > 0) this.loadRank();
    for (; this.idCursor < this.idBlocks.length && budget > 0; this.idCursor++)
      if (!this.idBlocks[this.idCursor]) {
        this.loadIds(this.idCursor);
        budget--;
      }
    for (; this.bucketCursor < this.bucketLoaded.length && budget > 0; this.bucketCursor++)
      if (this.bucketLoaded[this.bucketCursor] === 0) {
        this.loadBucket(this.bucketCursor);
        budget--;
      }
    const left =
      !this.attributesLoaded ||
      !this.idRank ||
      this.idCursor < this.idBlocks.length ||
      this.bucketCursor < this.bucketLoaded.length;
    if (!left) this.loaded();
    return left;
  }

  /** The id of a live or dead slot, reading its part first when the index was restored and it is not read yet. */
  private idAt(slot: number): string {
    if (!this.reader) return this.ids[slot]!;
    if (slot >= this.savedUsed) return this.newIds[slot - this.savedUsed]!;
    const block = Math.floor(slot / ID_BLOCK);
    return (this.idBlocks[block] ?? this.loadIds(block))[slot - block * ID_BLOCK]!;
  }

  /** Reads (unless given) and decodes an id part. */
  private loadIds(block: number, given?: Uint8Array): string[] {
    const ids = this.part(FIRST_ID_PART + block, unpackStrings, given);
    if (ids.length !== Math.min(ID_BLOCK, this.savedUsed - block * ID_BLOCK))
      throw new KeywordPartError(`keyword index part ${FIRST_ID_PART + block}: not the ids of the header`);
    this.idBlocks[block] = ids;
    return ids;
  }

  /**
   * The scopes and attribute columns of a restored index (a filter on them, or a patch of a saved
   * document, needs them): the saved slots' entries; the writes' slots past them keep theirs.
   */
  private loadAttributes(): void {
    if (!this.reader || this.attributesLoaded) return;
    const used = this.savedUsed;
    const [scope, ...columns] = this.part(ATTRIBUTES_PART, (bytes) => unpack(bytes).arrays);
    if (scope?.length !== used || columns.length !== this.columns.length * 2)
      throw new KeywordPartError('keyword index part 1: not the attributes of the header');
    // The saved slots' entries, then the writes' (from their own arrays, which start at the first slot past them).
    const capacity = this.classOf.length;
    const written = this.used - used;
    const fresh = new Int32Array(capacity);
    fresh.set(scope);
    fresh.set(this.scope.subarray(0, written), used);
    this.scope = fresh;
    this.columns.forEach((c, i) => {
      const savedLabels = columns[i * 2]!;
      const savedNumbers = columns[i * 2 + 1]!;
      const labels = new Int32Array(capacity);
      if (savedLabels.length > 0) labels.set(savedLabels);
      else labels.fill(-1, 0, used);
      labels.set(c.labels.subarray(0, written), used);
      const numbers = new Float64Array(capacity);
      if (savedNumbers.length > 0) numbers.set(savedNumbers);
      else numbers.fill(Number.NaN, 0, used);
      numbers.set(c.numbers.subarray(0, written), used);
      c.labels = labels;
      c.numbers = numbers;
    });
    this.attrBase = 0;
    this.attributesLoaded = true;
  }

  /** Reads an id bucket: the live saved slot of each id in it. */
  private loadIdBucket(bucket: number): Map<string, number> {
    const h = this.parts!;
    const slots = this.part(FIRST_ID_PART + h.idParts + h.buckets + bucket, (bytes) => {
      const { meta, arrays } = unpack<{ ids: string[] }>(bytes);
      const [at] = arrays;
      if (!(at instanceof Int32Array) || at.length !== meta.ids.length) throw new RangeError('not an id bucket');
      const found = new Map<string, number>();
      meta.ids.forEach((id, i) => {
        if (at[i]! < 0 || at[i]! >= this.savedUsed || bucketOf(id, h.idBuckets!) !== bucket)
          throw new RangeError('not an id bucket');
        found.set(id, at[i]!);
      });
      return found;
    });
    this.idBucketsRead.set(bucket, slots);
    return slots;
  }

  /** Every part of a restored index; then it no longer reads. */
  private loadAll(): void {
    if (!this.reader) return;
    this.loadAttributes();
    this.idRank ??= this.loadRank(); // a later write of a new id finds the saved ones by it
    for (let b = 0; b < this.idBlocks.length; b++) if (!this.idBlocks[b]) this.loadIds(b);
    for (let b = 0; b < this.bucketLoaded.length; b++) if (this.bucketLoaded[b] === 0) this.loadBucket(b);
    this.loaded();
  }

  /** Every part is read: the ids and postings as the arrays an index built here holds; no more reading. */
  private loaded(): void {
    const terms = this.savedTerms + this.newTerms;
    for (let id = 0; id < terms; id++)
      if (!this.lazyPostings.has(id)) throw new KeywordPartError(`keyword index parts: no postings for term ${id}`);
    if (this.pendingByBucket.size > 0) throw new KeywordPartError('keyword index parts: pending postings left');
    for (let id = 0; id < terms; id++) this.postings.push(widened(this.lazyPostings.get(id)!));
    // Every bucket is read: the writes' slots name their terms' ids, no pending one.
    for (let s = this.savedUsed; s < this.used; s++) {
      const end = this.termStart[s]! + this.termCount[s]!;
      for (let i = this.termStart[s]!; i < end; i++)
        if (this.docTerms[i]! < 0) this.docTerms[i] = this.pendingResolved[-1 - this.docTerms[i]!]!;
    }
    this.pendingPostings = [];
    this.pendingResolved = [];
    this.ids = this.idBlocks.flat();
    this.idsRestored = this.savedUsed > 0;
    for (const id of this.newIds) this.ids.push(id);
    this.idBlocks = [];
    this.newIds = [];
    this.bySavedRank = undefined;
    this.idBucketsRead = new Map();
    this.foldTouched();
    this.lazyPostings = new Map();
    this.reader = undefined;
    this.readMany = undefined;
    this.parts = undefined;
  }

  private grow(): void {
    const size = this.classOf.length * 2;
    this.classOf = grown(this.classOf, new Int32Array(size));
    this.termStart = grown(this.termStart, new Int32Array(size));
    this.termCount = grown(this.termCount, new Int32Array(size));
    this.textLength = grown(this.textLength, new Uint32Array(size));
    this.contextLength = grown(this.contextLength, new Uint32Array(size));
  }

  /** The attribute arrays, twice as long (they hold the slots from `attrBase`). */
  private growAttributes(): void {
    const size = this.scope.length * 2;
    this.scope = grown(this.scope, new Int32Array(size));
    for (const c of this.columns) {
      c.labels = grown(c.labels, new Int32Array(size));
      c.numbers = grown(c.numbers, new Float64Array(size));
    }
  }
}
