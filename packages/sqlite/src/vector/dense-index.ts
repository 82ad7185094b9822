// One class past ~700 lines on purpose: a connection's index lifecycle (writes and transaction marks,
// the index built from writes, load/restore/catch-up, slices, save) shares its private state (the
// loaded index, the pending codes, the save counters). The parts that stand alone already do:
// sparse-index, sparse-build, sparse-save, written-index, dense-clear and ../search/dense-search.
import {
  BinaryIndex,
  BinaryPartError,
  cosineSimilarity,
  isSparse,
  type SavedCode,
  type SavedCodes,
} from '@agentmem/core';
import type Database from 'better-sqlite3';
import { chunks, multiRowInsert } from '../records';
import { beginImmediateNow, blobVector, CODES_TABLE } from '../schema';
import { clearEmptyDense } from './dense-clear';
import { buildSparse, extendSparseSave } from './sparse-build';
import { CHUNK, SparseIndex } from './sparse-index';
import { sparseSaveAtClose } from './sparse-save';
import { clearArgs, codeArgs, oneScope, queueWritten, signCodes } from './written-codes';
import { type WrittenCode, WrittenIndex, WrittenRow } from './written-index';

/** Rowids re-read (a load from the codes table, or the changes since the saved index) before the index is saved again. */
export const DENSE_SAVE_AFTER = 1000;
/**
 * Rescoring parts (factors and int8 copies of 4096 vectors: ~1.6 MB at 384 dims) each search after a
 * connection's first reads ahead: at 100k vectors the index is read whole after ~13 searches, while
 * the first search reads only the keys and sign codes (~5.6 MB) and the codes of its pool one by one.
 */
const READ_AHEAD_PARTS = 2;
/**
 * Pages of SQLite's cache while the first search reads its pool (poolRead). The pool's rowids are
 * looked up in ascending order (the IN list's ephemeral index), so the root and interior pages of
 * each lookup's path stay at the head of the LRU and 16 pages already read no page twice (633 reads
 * for 600 rows at 8 KiB pages, 733 at 4 KiB: as with 128); 32 leave room for a deeper tree. Every
 * slot is memory the process touches for the first time: 128 slots of 8 KiB were ~250 page faults
 * more (issue 30, cold-13). The usual 8,192 pages cost 24-35 ms of CPU (cold-6).
 */
const POOL_CACHE_PAGES = 32;
/** Rowids per statement when the changes since the saved index are read back. */
const READ_CHUNK = 500;

/**
 * The codes insert by conflict clause and row count: tenant and namespace bound once a statement as
 * named parameters (`shared`) when the chunk's rows share one scope (a bulk write's usual case), not two
 * strings a row (each a UTF-8 copy by better-sqlite3 and another by SQLite). `OR REPLACE` (a new vector of
 * a row that has one) may abort on a NOT NULL column, so SQLite gave each such statement a statement
 * journal (every page of the table and its scope index the statement changed that was in the file before
 * copied to a temporary file first); rows just inserted take `OR FAIL`, which needs none.
 */
const INSERT_CODES = (['REPLACE', 'FAIL'] as const).map((conflict) =>
  [false, true].map((shared) =>
    multiRowInsert(
      `INSERT OR ${conflict} INTO ${CODES_TABLE} (rowid, tenant, namespace, code, embedding)`,
      shared ? '(?, @tenant, @namespace, ?, ?)' : '(?, ?, ?, ?, ?)',
    ),
  ),
);

/** A row's vector as written: `floats` (bound as the row's blob: its bytes). */
export interface WrittenVector {
  tenant: string;
  namespace: string;
  floats: Float32Array;
}

/**
 * The in-process binary index of one SQLite connection, over the codes table,
 * with an int8 copy of every vector (384 bytes at 384 dims) that ranks the
 * Hamming pool in memory, so only the head of the ranking is read from the
 * file. The table is the truth and is written in the caller's transaction; the
 * in-process index only picks and orders candidates, which are always re-read
 * from the table (with the filter, and their exact floats for the final
 * scores), so it may hold more than the file but never miss a committed row:
 * this connection's writes reach it when their transaction commits (a search
 * inside a transaction also looks at the rows that transaction wrote), other
 * connections' commits (`PRAGMA data_version` changes) make it load again.
 *
 * The index is saved in the file (`dense_snapshot` and `dense_parts`, schema 11,
 * BinaryIndex.toParts) as of a generation of `dense_changes`, where every write
 * logs the rowids whose vectors it changed (one row a write, once a save exists).
 * A load reads the saved keys and sign codes, re-reads only the rows changed
 * since, and reads the int8 copies later: single codes for the pool of its first
 * search, whole parts ahead of the next searches. A part gone with another
 * connection's newer save makes it load again; a save that does not decode, or
 * none, means a load from the codes table (saved when it read many rows, or at
 * close after many writes: loaded then, if no search did).
 *
 * A file of sparse vectors (a lexical embedder) gets a SparseIndex instead, loaded, saved and caught
 * up the same way: it serves exact search (`sparseCandidates`), not the approximate one (`size`
 * undefined). Only a connection that can save it builds it from the table.
 */
export class SqliteDenseIndex {
  /** A SparseIndex when the file's vectors are sparse (lexical embedder): signs cannot rank them. */
  private index: BinaryIndex<number> | SparseIndex | undefined;
  private version: number | undefined;
  private pending: WrittenCode[] = [];
  private readonly statements = new Map<string, Database.Statement>();
  /** The save the loaded index was read from, and one whose parts failed (not restored again). */
  private loadedSave: number | undefined;
  private failedSave: number | undefined;
  /** Searches since the index was loaded: the first one reads no part ahead. */
  private searches = 0;
  /** Rowids the current write changed, logged in one row when it ends (`flush`). */
  private unlogged: number[] = [];
  /** Rowids written since the index was loaded or saved: many make close() save it. */
  private unsaved = 0;
  /** Sparse vectors this connection wrote: a writer leaves the sparse index saved at close (sparseSaveAtClose). */
  private sparseWritten = 0;
  /** The sparse index was just built from the table (a first slice): this search builds no more. */
  private sliced = false;
  /** Whether the file has the tables of the saved index (schema 11; a read-only older file has not). */
  private readonly saves: boolean;
  /** The index built from this connection's writes into an empty table, until a load takes it (written-index.ts). */
  private written: WrittenIndex | undefined;
  /** Whether this connection's first write looked for an empty table (once a connection). */
  private writeChecked = false;

  /** Prepared once: `db.pragma()` prepares its statement on every call, and every search asks. */
  private readonly dataVersion: Database.Statement;

  /** `persist`: whether this connection may save the index into the file (not read-only, not `:memory:`). */
  constructor(
    private readonly db: Database.Database,
    private readonly dimension: number,
    private readonly persist = true,
  ) {
    this.dataVersion = db.prepare('PRAGMA data_version').pluck();
    this.saves =
      db
        .prepare(
          "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name IN ('dense_snapshot', 'dense_parts', 'dense_changes')",
        )
        .pluck()
        .get() === 3;
  }

  /** Inside the caller's write transaction: the vectors of these rowids (rows[i] is rowids[i]'s) were written. */
  writtenMany(rowids: readonly number[], rows: readonly WrittenVector[], fresh = false): void {
    // The loops are functions of their own (written-codes.ts: why).
    // The table keeps the sign bits only; the in-process index quantizes the int8 copy from the floats
    // at commit, by its kernel straight into its heap (encodeRescoring's buffer a row, then a copy of
    // it, cost more: issue 30), and a writer that never searches never quantizes at all.
    const sparse: boolean[] = new Array(rows.length);
    const codes = signCodes(rows, this.dimension, Math.ceil(this.dimension / 32), sparse);
    if (!this.writeChecked) this.firstWrite(sparse);
    for (const [offset, size] of chunks(rows.length)) {
      // A single row binds its two strings (a named-parameter object costs more than they do).
      const shared = size > 1 && oneScope(rows, offset, size);
      const args = codeArgs(rowids, rows, codes, offset, size, shared);
      if (!fresh) this.insertCodes(0, shared, size, args, rows[offset]!);
      else {
        try {
          this.insertCodes(1, shared, size, args, rows[offset]!);
        } catch (error) {
          // A codes row already at a new row's rowid (left by an edit of the file outside agentmem):
          // replaced, as before (the chunk's rows inserted before the conflict are written again).
          if ((error as { code?: string }).code !== 'SQLITE_CONSTRAINT_PRIMARYKEY') throw error;
          this.insertCodes(0, shared, size, args, rows[offset]!);
        }
      }
      clearArgs(args);
    }
    this.sparseWritten += queueWritten(this.pending, this.unlogged, rowids, rows, codes, sparse);
  }

  /** One codes insert of `size` rows (INSERT_CODES: conflict 0 REPLACE, 1 FAIL), `first` the chunk's first row. */
  private insertCodes(conflict: number, shared: boolean, size: number, args: unknown[], first: WrittenVector): void {
    const statement = this.stmt(INSERT_CODES[conflict]![+shared]!(size));
    // As call arguments: better-sqlite3 reads an array's values back one V8 call each (~0.4 us a row more).
    if (shared) statement.run(...args, { tenant: first.tenant, namespace: first.namespace });
    else statement.run(...args);
  }

  /**
   * At this connection's first write (inside its transaction, before its codes are inserted): an empty
   * codes table on a connection that saves means the index can be built from the writes themselves
   * (written-index.ts), not read back at close. One query a connection.
   */
  private firstWrite(sparse: readonly boolean[]): void {
    this.writeChecked = true;
    if (!this.persist || !this.saves || (this.index && this.index.size > 0) || sparse.length === 0) return;
    // A first batch of both kinds: the table's load decides, as before.
    if (sparse.some((s) => s !== sparse[0])) return;
    if (this.stmt(`SELECT EXISTS (SELECT 1 FROM ${CODES_TABLE})`).pluck().get()) return;
    this.written = new WrittenIndex(this.dimension, sparse[0]!, this.dataVersion.get() as number);
  }

  /** Inside the caller's write transaction: the row (or its vector) is gone. */
  deleted(rowid: number): void {
    this.stmt(`DELETE FROM ${CODES_TABLE} WHERE rowid = ?`).run(rowid);
    this.pending.push(new WrittenRow(rowid, undefined));
    this.unlogged.push(rowid);
  }

  /**
   * Inside the caller's write transaction, at the end of each write: logs the rowids it changed, when
   * the file holds a saved index (without one, the next load reads the table whole anyway).
   */
  flush(): void {
    if (this.unlogged.length === 0) return;
    if (this.saves && this.stmt('SELECT 1 FROM dense_snapshot WHERE id = 1').get())
      this.stmt('INSERT INTO dense_changes (rowids) VALUES (?)').run(JSON.stringify(this.unlogged));
    this.unsaved += this.unlogged.length;
    this.unlogged.length = 0; // emptied, not replaced (committed: why)
  }

  /** Position to roll back to when a savepoint is undone. */
  mark(): number {
    return this.pending.length;
  }

  rollbackTo(mark: number): void {
    this.pending.length = Math.min(this.pending.length, mark);
    this.unlogged.length = 0;
  }

  /** The outermost transaction committed: its codes join the in-process index. */
  committed(): void {
    // Loaded from an empty table, the sample said nothing about the vectors: load again with these.
    if (this.index?.size === 0 && this.pending.length > 0) this.index = undefined;
    if (!this.index && this.written) this.takeWritten();
    else if (this.index) {
      try {
        for (const p of this.pending) {
          if (p.code) this.addCode(this.index, p.rowid, p.code.tenant, p.code.namespace, p.code.encoded, p.code.vector);
          else this.index.remove(p.rowid);
        }
      } catch (error) {
        // A saved part the change needed is gone (another connection saved): the next search loads again.
        if (!(error instanceof BinaryPartError)) throw error;
        this.dropFailed();
      }
    }
    // Emptied, not replaced: a new `[]` holds small integers (its elements kind) until its first
    // push, so queueWritten's compiled push met an array of another map after every commit and was
    // sent back to the interpreter ("wrong map", then "not a Smi": 4-7 compiles of it in a 20k ingest).
    this.pending.length = 0;
  }

  rolledBack(): void {
    this.pending.length = 0; // emptied, not replaced (committed: why)
    this.unlogged.length = 0;
  }

  /** The committed writes into the index built from them; dropped (the table is read as before) when it cannot take them. */
  private takeWritten(): void {
    const written = this.written!;
    let ok = false;
    try {
      ok = this.dataVersion.get() === written.version && written.take(this.pending);
    } catch {
      // e.g. a vector of another length: the table's load reports it, as before
    }
    if (!ok) this.written = undefined;
  }

  /**
   * How many vectors the scope holds (with those the open transaction wrote),
   * or undefined when the binary index cannot serve: sparse vectors, a file
   * without the codes table, a first load inside a transaction.
   */
  size(scope: { tenant: string | null; namespaces?: readonly string[] }): number | undefined {
    const index = this.load();
    return index instanceof BinaryIndex ? index.count(scope) + this.pending.length : undefined;
  }

  /**
   * Once a dense search, before `sparseCandidates`: a sparse index whose build is not finished goes on
   * by one slice (sparse-build.ts) on a connection that may save it, unless this search's load just
   * built the first one; the index is then restored again.
   */
  sparseSlice(): void {
    const index = this.load();
    const sliced = this.sliced;
    this.sliced = false;
    if (!(index instanceof SparseIndex) || index.through === Number.POSITIVE_INFINITY || sliced) return;
    if (this.persist && !this.db.inTransaction && this.trySlice()) this.index = undefined;
  }

  /** One slice appended to the save; a failed one (e.g. SQLITE_FULL: one transaction) fails nothing, the rest is scanned. */
  private trySlice(): boolean {
    try {
      return extendSparseSave(this.db, this.dimension);
    } catch {
      return false;
    }
  }

  /**
   * For a file of sparse vectors: rowids of a superset of the `m` rows of the scope nearest to the
   * query by cosine (SparseIndex.candidates), with every row the open transaction wrote; the caller
   * scores them exactly and keeps the best m. Undefined when the index cannot serve (dense vectors:
   * see `size`; a zero query; a first load inside a transaction): then the caller scans.
   */
  sparseCandidates(
    query: Float32Array,
    scope: { tenant: string | null; namespaces?: readonly string[] },
    m: number,
  ): { keys: number[]; after: number } | undefined {
    const index = this.load();
    if (!(index instanceof SparseIndex)) return undefined;
    let keys: number[] | undefined;
    try {
      // The open transaction may have replaced or deleted some of the index's best m: m more cover them.
      keys = index.candidates(query, scope, m + this.pending.length);
    } catch (error) {
      if (!(error instanceof BinaryPartError)) throw error;
      this.dropFailed(); // a column part gone with another connection's newer save: load again next time
      return undefined;
    }
    // Bounds too loose to exclude much (odd vectors, a query with many dimensions): a scan reads less.
    if (!keys || keys.length > index.size / 2) return undefined;
    for (const p of this.pending) if (p.code) keys.push(p.rowid);
    return { keys, after: index.through };
  }

  /**
   * Rowids of the `m` vectors nearest to the query by Hamming distance in the
   * scope, plus the rows the open transaction wrote there (scored exactly),
   * best first by their int8 (near-exact) cosine. Call `size` first.
   */
  candidates(
    query: Float32Array,
    scope: { tenant: string | null; namespaces?: readonly string[] },
    m: number,
  ): number[] {
    const index = this.index instanceof BinaryIndex ? this.index : undefined; // `size` said it serves
    const { keys, scores } = index ? this.ranked(index, query, scope, m) : { keys: [], scores: [] };
    if (this.pending.length === 0) return keys;
    // The open transaction's rows: the last write of a rowid wins over the index and earlier writes.
    const latest = new Map<number, WrittenCode>();
    for (const p of this.pending) latest.set(p.rowid, p);
    const ranked: { rowid: number; score: number }[] = [];
    for (let i = 0; i < keys.length; i++)
      if (!latest.has(keys[i]!)) ranked.push({ rowid: keys[i]!, score: scores[i]! });
    for (const p of latest.values()) {
      const c = p.code;
      if (!c) continue;
      if (scope.tenant !== null && c.tenant !== scope.tenant) continue;
      if (scope.namespaces && !scope.namespaces.includes(c.namespace)) continue;
      ranked.push({ rowid: p.rowid, score: cosineSimilarity(query, c.vector) });
    }
    return ranked.sort((x, y) => y.score - x.score || x.rowid - y.rowid).map((r) => r.rowid);
  }

  /** The index's ranking; a restored index then reads a few of its saved parts ahead (not on its first search). */
  private ranked(
    index: BinaryIndex<number>,
    query: Float32Array,
    scope: { tenant: string | null; namespaces?: readonly string[] },
    m: number,
  ): { keys: number[]; scores: ArrayLike<number> } {
    const ranked = index.ranked(query, scope, m);
    if (this.searches++ > 0 && this.loadedSave !== undefined && !this.db.inTransaction) {
      try {
        if (this.withoutMmap(() => index.readAhead(READ_AHEAD_PARTS)) === 0) this.loadedSave = undefined;
      } catch (error) {
        if (!(error instanceof BinaryPartError)) throw error;
        this.dropFailed(); // the next search loads the file's newer save
      }
    }
    return ranked;
  }

  /** `cosineSimilarity(query, v)` of each vector (the same numbers), by the index's WebAssembly kernel when it has one. */
  cosines(query: Float32Array, vectors: readonly Float32Array[]): number[] {
    return this.index instanceof BinaryIndex
      ? this.index.cosines(query, vectors)
      : vectors.map((v) => cosineSimilarity(query, v));
  }

  /**
   * Those rowids' rows that pass `where` (SQL over `source r`: records, or the view that merges
   * pending logged changes in), as `columns` select them, each with its float vector read from the
   * codes table.
   */
  rows<T extends { rowid: number }>(
    rowids: readonly number[],
    columns: string,
    where: { sql: string; params: Record<string, unknown> },
    source = 'records',
  ): { row: T; vector: Float32Array }[] {
    const read = () =>
      this.stmt(
        `SELECT ${columns}, v.embedding AS embedding FROM ${source} r JOIN ${CODES_TABLE} v ON v.rowid = r.rowid ` +
          `WHERE r.rowid IN (SELECT value FROM json_each(@rowids)) AND ${where.sql}`,
      ).all({ ...where.params, rowids: JSON.stringify(rowids) }) as (T & { embedding: Buffer })[];
    // The index's first search (its pool read, then these): ~130 pages of records and codes at a head of
    // 63, each a fresh slot of the usual cache (~250 page faults), recycled in a few (as poolRead does).
    const rows = this.searches <= 1 ? this.smallCache(read) : read();
    return rows.map((row) => ({ row, vector: blobVector(row.embedding) }));
  }

  /**
   * Before the connection closes: saves the index when this connection wrote many vectors since it
   * was loaded or saved, so the next process does not re-read them. A binary index no search loaded
   * is loaded here first (read from the table, or caught up), so that a bulk writer's next process
   * restores it (issue 30: ~0.7 s of its first recall at 20k); a sparse one is built when
   * sparseSaveAtClose says so, so that no search builds it. A failed load or save fails nothing.
   */
  close(): void {
    if (!this.persist || this.db.inTransaction) return;
    const sparse = this.index
      ? this.index instanceof SparseIndex
      : this.saves && sparseSaveAtClose(this.db, this.sparseWritten, DENSE_SAVE_AFTER);
    if (sparse && this.sparseWritten > 0) {
      try {
        this.closeSparse();
      } catch {
        // Not saved (a load that failed): the next search builds or catches up; the close goes on.
      }
      return;
    }
    if (this.unsaved < DENSE_SAVE_AFTER) return;
    try {
      // Not loaded, or another connection committed since: a load (it saves itself when it re-read many).
      const index = this.load();
      if (index instanceof BinaryIndex && this.unsaved >= DENSE_SAVE_AFTER) this.trySave(index);
    } catch {
      // Not saved: the next search loads and saves it; the close goes on.
    }
  }

  /**
   * A writer of sparse vectors leaves the index saved: caught up or built (a first slice) and saved,
   * and a build not finished carried on by as many slices as it wrote chunks (one at least), so
   * that a bulk writer leaves it whole and no later search builds it.
   */
  private closeSparse(): void {
    const finished = (index: SparseIndex) => index.through === Number.POSITIVE_INFINITY;
    // Loaded, whole, and few writes since: they stay logged (nothing to load again, no lock to take).
    if (this.index instanceof SparseIndex && finished(this.index) && this.unsaved < DENSE_SAVE_AFTER) return;
    const index = this.load();
    if (!(index instanceof SparseIndex)) return;
    if (this.loadedSave === undefined || this.unsaved >= DENSE_SAVE_AFTER) this.trySave(index);
    if (finished(index)) return;
    for (let n = Math.max(1, Math.ceil(this.sparseWritten / CHUNK)); n > 0; n--) if (!this.trySlice()) break;
  }

  /**
   * For `optimize` (maintenance/optimize.ts): loads the index as a search would (a restore caught up,
   * or read from the table: a sparse build's first slice; kept while no other connection commits, and
   * dropped by `forget` after optimize appends slices to the save) and saves it when it holds changes
   * since its save (read or written here) or the file holds no save. Skipped, as any save, when another
   * process holds the write lock: the caller tries again, and the loaded index is not read twice.
   * Errors are the caller's (no trySave).
   */
  saveNow(): void {
    if (!this.persist || !this.saves || this.db.inTransaction) return;
    const index = this.load();
    // An empty index always goes to save: it clears what is left logged, if anything (dense-clear.ts).
    if (
      index &&
      (this.unsaved > 0 || index.size === 0 || !this.db.prepare('SELECT 1 FROM dense_snapshot WHERE id = 1').get())
    )
      this.save(index);
  }

  /** For `optimize`: drops the loaded index (this connection appended a slice to the file's save: it is read again). */
  forget(): void {
    this.index = undefined;
  }

  private dropFailed(): void {
    this.failedSave = this.loadedSave;
    this.index = undefined;
  }

  private load(): BinaryIndex<number> | SparseIndex | undefined {
    const version = this.dataVersion.get() as number;
    if (version !== this.version) this.index = undefined; // another connection committed
    if (this.index) return this.index;
    // Loaded outside transactions only, so that the index never holds rows a rollback takes back.
    if (this.db.inTransaction) return undefined;
    const written = this.written;
    this.written = undefined;
    if (written && written.version === version && written.size > 0) {
      // Built from this connection's writes into an empty table: the table's rows, not read back; then
      // as a load from the table (saved when it holds many).
      const index = written.index();
      this.index = index;
      this.version = version;
      this.loadedSave = undefined;
      this.searches = 0;
      this.sliced = index instanceof SparseIndex;
      this.unsaved = Math.max(this.unsaved, written.size);
      if (this.unsaved >= DENSE_SAVE_AFTER) this.trySave(index);
      return index;
    }
    const table = this.db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?").get(CODES_TABLE);
    if (!table) return undefined; // a read-only file from before schema step 4: exact search
    let loaded: { index: BinaryIndex<number> | SparseIndex; save?: number; reread: number } | undefined;
    // One read transaction: the saved index, the changes after it and the rows they name agree.
    this.withoutMmap(() => {
      this.db.prepare('BEGIN').run();
      try {
        loaded = this.restore() ?? this.loadTable();
      } finally {
        this.db.prepare('COMMIT').run();
      }
    });
    if (!loaded) return undefined; // sparse vectors, no saved index, and none may be saved: exact scans
    const { index, save, reread } = loaded;
    this.index = index;
    this.version = version;
    this.loadedSave = save;
    this.searches = 0;
    this.unsaved = reread;
    if (this.persist && reread >= DENSE_SAVE_AFTER) this.trySave(index);
    return index;
  }

  /**
   * Reads through the page cache, not the memory map: mapped, every page of the codes table or of
   * the saved parts read once here would stay in the process's resident memory (~200 MB at 100k
   * vectors for the table) though searches then read only a few rows each.
   */
  private withoutMmap<T>(read: () => T): T {
    const mmap = this.db.pragma('mmap_size', { simple: true }) as number;
    if (mmap > 0) this.db.pragma('mmap_size = 0');
    try {
      return read();
    } finally {
      if (mmap > 0) this.db.pragma(`mmap_size = ${mmap}`);
    }
  }

  /**
   * The candidate pool's rows, read by rowid (one page of `vector_codes` each, ~600 pages spread over
   * the file). On the index's first search only (later ones read as every query does): not through
   * the memory map (a fault on a mapped page cost more than a read here) and through a page cache
   * of a few pages. On a cold start every page SQLite's cache keeps is memory the process touches for
   * the first time (~15 us a page on the bench VM): recycling a few slots read the pool in 10-14 ms
   * of CPU instead of 24-35. Later searches keep the cache and the map (shrinking the cache drops the
   * pages other queries hold; switching the map off and on remaps the file).
   */
  private poolRead<T>(read: () => T): T {
    if (this.searches > 0) return read();
    // The map is not switched inside a transaction (a fill for a change, a search in the caller's transaction).
    return this.smallCache(this.db.inTransaction ? read : () => this.withoutMmap(read));
  }

  /** `read` through a page cache of POOL_CACHE_PAGES pages (the pages it held beyond them are dropped). */
  private smallCache<T>(read: () => T): T {
    const cache = this.db.pragma('cache_size', { simple: true }) as number;
    this.db.pragma(`cache_size = ${POOL_CACHE_PAGES}`);
    try {
      return read();
    } finally {
      this.db.pragma(`cache_size = ${cache}`);
    }
  }

  /** The saved index caught up with the changes logged since, or undefined (then the table is read). */
  private restore(): { index: BinaryIndex<number> | SparseIndex; save: number; reread: number } | undefined {
    if (!this.saves) return undefined;
    const saved = this.db.prepare('SELECT generation, save, data FROM dense_snapshot WHERE id = 1').get() as
      | { generation: number; save: number; data: Buffer }
      | undefined;
    if (!saved || saved.save === this.failedSave) return undefined;
    const source: SavedCodes<number> = { ...this.savedParts(saved.save), codes: (rowids) => this.codes(rowids) };
    let index: BinaryIndex<number> | SparseIndex;
    try {
      index = SparseIndex.isHeader(saved.data)
        ? SparseIndex.fromParts(saved.data, source)
        : BinaryIndex.fromParts(saved.data, source);
      if (index.dimension !== this.dimension) throw new Error('saved with another dimension');
    } catch {
      this.failedSave = saved.save; // does not decode: the table is read, and saved again
      return undefined;
    }
    const changed = new Set<number>();
    const logs = this.db
      .prepare('SELECT rowids FROM dense_changes WHERE generation > ? ORDER BY generation')
      .pluck()
      .iterate(saved.generation) as Iterable<string>;
    // Rowids above a build not finished are scanned, not held: nothing to re-read for them.
    const through = index instanceof SparseIndex ? index.through : Number.POSITIVE_INFINITY;
    for (const rowids of logs)
      for (const rowid of JSON.parse(rowids) as number[]) if (rowid <= through) changed.add(rowid);
    // Most of the vectors changed since: reading the table in one pass is cheaper than by rowid.
    if (changed.size > index.size / 2 + DENSE_SAVE_AFTER) return undefined;
    try {
      this.catchUp(index, [...changed]);
    } catch (error) {
      if (!(error instanceof BinaryPartError)) throw error;
      this.failedSave = saved.save;
      return undefined;
    }
    return { index, save: saved.save, reread: changed.size };
  }

  /** The parts of one save, read when asked (BinaryPartError when the file holds another save). */
  private savedParts(save: number): { part(n: number): Uint8Array } {
    const part = this.db.prepare('SELECT data FROM dense_parts WHERE part = ? AND save = ?').pluck();
    return {
      part: (n) => {
        const data = part.get(n, save) as Buffer | undefined;
        if (!data) throw new BinaryPartError('gone: the file holds another save');
        return data;
      },
    };
  }

  /** Re-reads the codes of these rowids into the index (those gone leave it). */
  private catchUp(index: BinaryIndex<number> | SparseIndex, rowids: readonly number[]): void {
    const read = this.db
      .prepare(
        `SELECT rowid, tenant, namespace, code, CASE WHEN length(code) = ? THEN NULL ELSE embedding END FROM ${CODES_TABLE} ` +
          'WHERE rowid IN (SELECT value FROM json_each(?))',
      )
      .raw();
    for (let i = 0; i < rowids.length; i += READ_CHUNK) {
      const chunk = rowids.slice(i, i + READ_CHUNK);
      const found = new Set<number>();
      const rows = read.all(index.encodedBytes, JSON.stringify(chunk)) as [
        number,
        string,
        string,
        Buffer,
        Buffer | null,
      ][];
      for (const [rowid, tenant, namespace, code, embedding] of rows) {
        found.add(rowid);
        this.addCode(index, rowid, tenant, namespace, code, embedding ? blobVector(embedding) : undefined);
      }
      for (const rowid of chunk) if (!found.has(rowid)) index.remove(rowid);
    }
  }

  /**
   * Codes of these rowids as encodeRescoring encodes them, or their floats where the table holds signs
   * only (the index quantizes them where they go: no buffer a code, ~600 on a cold first search; nor
   * a Buffer of the signs, which the index does not need then).
   */
  private codes(rowids: readonly number[]): SavedCode[] {
    const bytes = this.encodedBytes();
    const rows = this.poolRead(() =>
      this.stmt(
        `SELECT rowid, CASE WHEN length(code) = ? THEN code END, CASE WHEN length(code) = ? THEN NULL ELSE embedding END FROM ${CODES_TABLE} ` +
          'WHERE rowid IN (SELECT value FROM json_each(?))',
      )
        .raw()
        .all(bytes, bytes, JSON.stringify(rowids)),
    ) as [number, Buffer | null, Buffer | null][];
    const byRowid = new Map<number, SavedCode>();
    // Indexed, not destructured: a cold process ran the iterator protocol for each of ~600 rows.
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!;
      const embedding = row[2];
      byRowid.set(row[0], embedding ? blobVector(embedding) : (row[1] ?? undefined));
    }
    return rowids.map((r) => byRowid.get(r));
  }

  private encodedBytes(): number {
    return Math.ceil(this.dimension / 32) * 4 + 4 + this.dimension;
  }

  /** A load from the codes table (no usable save). */
  private loadTable(): { index: BinaryIndex<number> | SparseIndex; reread: number } | undefined {
    const sample = this.db.prepare(`SELECT embedding FROM ${CODES_TABLE} LIMIT 32`).pluck().all() as Buffer[];
    const sparse = sample.some((b) => isSparse(blobVector(b)));
    // A sparse index built here costs a few us a row (more than a scan): only worth it when it is saved
    // for the next processes; a read-only or in-memory connection scans, as it did before.
    if (sparse && !this.persist) return undefined;
    if (sparse) {
      // Built straight into its saved parts (floats only, in rowid order), then read like a restore: the
      // first chunk of rowids only in a larger file (sparse-build.ts), the next ones by later searches.
      const { header, parts, size } = buildSparse(this.db, this.dimension);
      this.sliced = true;
      return { index: SparseIndex.fromParts(header, { part: (n) => parts[n]! }), reread: size };
    }
    const index = new BinaryIndex<number>(this.dimension, { rescoring: true });
    // Codes with sign bits only (as written since schema 11, and before the int8 copy joined them)
    // are quantized from the floats; a sparse index reads every row's floats (encodedBytes -1).
    const rows = this.db
      .prepare(
        `SELECT rowid, tenant, namespace, code, CASE WHEN length(code) = ? THEN NULL ELSE embedding END FROM ${CODES_TABLE}`,
      )
      .raw()
      .iterate(index.encodedBytes);
    let n = 0;
    for (const [rowid, tenant, namespace, code, embedding] of rows as Iterable<
      [number, string, string, Buffer, Buffer | null]
    >) {
      this.addCode(index, rowid, tenant, namespace, code, embedding ? blobVector(embedding) : undefined);
      n++;
    }
    return { index, reread: n };
  }

  /** A save that never fails the caller: the changes stay logged and the next load catches up from them. */
  private trySave(index: BinaryIndex<number> | SparseIndex): void {
    try {
      this.save(index);
    } catch (error) {
      // e.g. SQLITE_FULL (nothing was written: the save is one transaction), or a part gone meanwhile
      if (error instanceof BinaryPartError) this.dropFailed();
    }
  }

  /**
   * Saves the index as of the latest generation, when it is the file's state: outside transactions,
   * under the write lock, and no other connection committed since it was loaded. Skipped (the
   * changes stay logged) when another process holds the lock: a search does not wait for a save.
   */
  private save(index: BinaryIndex<number> | SparseIndex): void {
    if (!this.saves || this.db.inTransaction) return;
    if (index.size === 0) {
      if (clearEmptyDense(this.db)) {
        this.unsaved = 0;
        this.loadedSave = undefined;
      }
      return;
    }
    if (!beginImmediateNow(this.db)) return;
    try {
      if (this.dataVersion.get() !== this.version || index !== this.index) {
        this.db.prepare('ROLLBACK').run();
        return;
      }
      // Reads the parts not read yet (of the save being replaced) first. A binary index's parts are
      // written as it gives them (writeParts: no copy of the whole index), after the old ones are gone.
      const binary = index instanceof BinaryIndex ? index : undefined;
      const sparseParts = binary ? undefined : this.withoutMmap(() => index.toParts());
      if (binary) this.withoutMmap(() => binary.readAhead(Number.POSITIVE_INFINITY));
      const generation =
        (this.db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'dense_changes'").pluck().get() as
          | number
          | undefined) ?? 0;
      // A new id for every save: a process holding another save's header finds none of these parts.
      const save = Math.floor(Math.random() * 2 ** 52);
      this.db.prepare('DELETE FROM dense_parts').run();
      const insert = this.db.prepare('INSERT INTO dense_parts (part, save, data) VALUES (?, ?, ?)');
      let header = sparseParts?.header;
      if (binary) header = binary.writeParts((n, bytes) => insert.run(n, save, asBuffer(bytes)));
      else for (const [n, bytes] of sparseParts!.parts.entries()) insert.run(n, save, asBuffer(bytes));
      this.db
        .prepare('INSERT OR REPLACE INTO dense_snapshot (id, generation, save, data) VALUES (1, ?, ?, ?)')
        .run(generation, save, asBuffer(header!));
      this.db.prepare('DELETE FROM dense_changes WHERE generation <= ?').run(generation);
      this.db.prepare('COMMIT').run();
      this.unsaved = 0;
      // A sparse index saved as it was built or restored reads its columns from this save from now on
      // (a built one stops holding them all); otherwise the index read all its parts to save them.
      this.loadedSave = index instanceof SparseIndex && index.rebase(this.savedParts(save)) ? save : undefined;
    } catch (error) {
      if (this.db.inTransaction) this.db.prepare('ROLLBACK').run();
      throw error;
    }
  }

  /** Copies a full code (signs + int8), or quantizes the vector of a signs-only one. */
  private addCode(
    index: BinaryIndex<number> | SparseIndex,
    rowid: number,
    tenant: string,
    namespace: string,
    encoded: Uint8Array,
    vector: Float32Array | undefined,
  ): void {
    if (index instanceof SparseIndex) {
      if (vector) index.set(rowid, tenant, namespace, vector);
    } else if (encoded.length === index.encodedBytes) index.setEncoded(rowid, tenant, namespace, encoded);
    else if (vector) index.set(rowid, tenant, namespace, vector, encoded); // `encoded`: the vector's signs (codeBlob)
  }

  private stmt(sql: string): Database.Statement {
    let s = this.statements.get(sql);
    if (!s) {
      if (this.statements.size >= 100) this.statements.clear();
      s = this.db.prepare(sql);
      this.statements.set(sql, s);
    }
    return s;
  }
}

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
