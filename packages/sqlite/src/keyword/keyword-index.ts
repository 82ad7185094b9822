import {
  type AttributeValue,
  type BackendRecord,
  KEYWORD_INDEX_COLUMNS,
  KeywordIndex,
  type KeywordMatch,
  KeywordPartError,
  type RecordFilter,
} from '@agentmem/core';
import type Database from 'better-sqlite3';
import { beginImmediateNow } from '../schema';

/** The JSON paths of the attributes the index holds, read in one json_extract (a JSON array). */
const COLUMN_PATHS = KEYWORD_INDEX_COLUMNS.map((key) => `'$."${key}"'`).join(', ');
/** Records re-read (a rebuild, or the changes since the saved index) before the index is saved again. */
export const KEYWORD_SAVE_AFTER = 1000;
/**
 * Saved parts a search after a connection's first reads ahead (~0.5 MB: 64-id blocks of ~2.4 KB,
 * postings buckets of ~8 KB): at 100k memories the index is read whole after ~20 searches, instead
 * of each later search reading the parts of its new terms and results one at a time.
 */
const READ_AHEAD_PARTS = 128;
/** Ids per statement when the changes since the saved index are read back. */
const READ_CHUNK = 500;

type Row = [string, string, string, string, string, string];

/**
 * The in-process keyword index of one SQLite connection (core's KeywordIndex:
 * BM25F, the same ranking as the in-memory backend). The file is the truth:
 * the index is saved in it (`keyword_snapshot` and `keyword_parts`, schema 10)
 * as of a generation of `keyword_changes`, where every write logs the ids it
 * changed (one row a write). A first search loads the saved index's header and
 * document part, reads the parts of its query terms and results as it needs
 * them, and re-reads only the records changed since; a part gone with another
 * connection's newer save makes it load again, one that does not decode makes
 * it rebuild. Without a usable snapshot it is rebuilt from `records`, and
 * saved when that (or the catching up) re-read many records, or at close after
 * many writes (loaded then, if no search did). This connection's writes reach the loaded index as they happen,
 * journaled so that a rollback (of the transaction or of a savepoint) takes
 * them back; other connections' commits (`PRAGMA data_version` changes) make it
 * load again.
 */
export class SqliteKeywordIndex {
  private index: KeywordIndex | undefined;
  private version: number | undefined;
  /** The save the loaded index was read from, and one whose parts failed (not loaded again: a rebuild). */
  private loadedSave: number | undefined;
  /** Searches since the index was loaded: the first one reads no part ahead. */
  private searches = 0;
  private failedSave: number | undefined;
  /** Loaded inside the open transaction: it may hold rows a rollback takes back. */
  private loadedInTransaction = false;
  /** Ids the current write changed, logged in one row when it ends (`flush`). */
  private readonly unlogged: string[] = [];
  /** Ids logged since the index was loaded or saved: many make close() save it. */
  private unsaved = 0;
  /** A load inside a transaction re-read many records: saved once that transaction commits. */
  private saveAtCommit = false;
  /** Whether this connection's first write still has to see if the store is empty (see `mark`). */
  private firstWrite = true;
  /** Loads left for a writer that logged many changes (see `committed`): one, so another writer cannot make it rebuild over and over. */
  private writerLoads = 1;

  /** Prepared once: `db.pragma()` prepares its statement on every call, and every search asks. */
  private readonly dataVersion: Database.Statement;

  /**
   * `source()` names what to load from: records, or the view that merges pending logged changes in.
   * `persist`: whether this connection may save the index into the file (not read-only, not `:memory:`).
   */
  constructor(
    private readonly db: Database.Database,
    private readonly source: () => string = () => 'records',
    private readonly persist = true,
  ) {
    this.dataVersion = db.prepare('PRAGMA data_version').pluck();
  }

  /** Inside the caller's write transaction: these records were written (validated). */
  written(records: readonly BackendRecord[]): void {
    for (const r of records) this.unlogged.push(r.id);
    this.update((index) => {
      for (const r of records) index.set(r.id, r);
    });
  }

  /** Inside the caller's write transaction: these attributes were merged into the record (undefined keys untouched). */
  patched(id: string, attributes: Readonly<Record<string, AttributeValue | undefined>> | undefined): void {
    if (!attributes) return;
    const defined: Record<string, AttributeValue> = {};
    let held = false;
    for (const [key, value] of Object.entries(attributes)) {
      if (value === undefined) continue;
      defined[key] = value;
      held ||= KEYWORD_INDEX_COLUMNS.includes(key);
    }
    if (!held) return; // reinforcement and other keys the index does not hold: nothing to log
    this.unlogged.push(id);
    this.update((index) => index.setAttributes(id, defined));
  }

  /** Inside the caller's write transaction: these records are gone. */
  deleted(ids: readonly string[]): void {
    for (const id of ids) this.unlogged.push(id);
    this.update((index) => {
      for (const id of ids) index.remove(id);
    });
  }

  /**
   * A write reaching the loaded index. A restored index reads the parts a write needs before it
   * changes anything (the attribute part, a few id parts, the postings parts of its terms): when they are gone (another connection saved since) it is
   * dropped, and the next search loads the file's state, this write included (it is logged).
   */
  private update(write: (index: KeywordIndex) => void): void {
    if (!this.index) return;
    try {
      write(this.index);
    } catch (error) {
      if (!(error instanceof KeywordPartError)) throw error;
      this.dropFailed();
    }
  }

  private dropFailed(): void {
    this.failedSave = this.loadedSave;
    this.index = undefined;
    this.loadedInTransaction = false;
  }

  /** `use` on the loaded index; a saved part it could not read means loading again (at last a rebuild, which reads none). */
  private withIndex<T>(use: (index: KeywordIndex) => T): T {
    for (;;) {
      const index = this.load();
      try {
        return use(index);
      } catch (error) {
        if (!(error instanceof KeywordPartError) || this.loadedSave === undefined) throw error;
        this.dropFailed();
      }
    }
  }

  /** Inside the caller's write transaction, at the end of each write: logs the ids it changed. */
  flush(): void {
    if (this.unlogged.length === 0) return;
    this.db.prepare('INSERT INTO keyword_changes (ids) VALUES (?)').run(JSON.stringify(this.unlogged));
    this.unsaved += this.unlogged.length;
    this.unlogged.length = 0;
  }

  /**
   * A transaction or savepoint begins (under the write lock): the position to roll back to. A
   * connection whose first write finds the store empty loads the index (nothing to read) so that its
   * writes reach it as they happen: a bulk writer's close then saves it instead of re-reading and
   * re-tokenising every row (issue 30). An index another connection's commit made stale is dropped
   * here: this connection's writes would only be re-read into a fresh load.
   */
  mark(): number {
    if (this.index && this.dataVersion.get() !== this.version) this.index = undefined;
    else if (!this.index && this.firstWrite && this.persist) {
      try {
        if (this.db.prepare('SELECT NOT EXISTS (SELECT 1 FROM records)').pluck().get() === 1) this.load();
      } catch {
        // Nothing is lost: the write goes on without the index, and its close loads it as before.
      }
    }
    this.firstWrite = false;
    return this.index?.begin() ?? 0;
  }

  rollbackTo(mark: number): void {
    this.unlogged.length = 0;
    if (this.loadedInTransaction) this.drop();
    else this.index?.rollback(mark);
  }

  /**
   * After the outermost commit. An index loaded inside the transaction is the file's state now: saved
   * when its load re-read many records, as a load outside a transaction is at once (else every later
   * process rebuilds it until one searches outside a transaction). A connection that logged many
   * changes with no index loaded (its close would load one) loads it now, once, without saving it:
   * its later writes reach it as they happen and its close saves it.
   */
  committed(): void {
    this.loadedInTransaction = false;
    this.index?.commit();
    if (this.saveAtCommit && this.index) {
      this.saveAtCommit = false;
      this.trySave(this.index);
    } else if (!this.index && this.persist && this.writerLoads > 0 && this.unsaved >= KEYWORD_SAVE_AFTER) {
      this.writerLoads--;
      try {
        this.load(false);
      } catch {
        // The write is committed: the close loads the index, as it did before this connection tried.
      }
    }
  }

  rolledBack(): void {
    this.unlogged.length = 0;
    if (this.loadedInTransaction) this.drop();
    this.loadedInTransaction = false;
    this.index?.rollback();
  }

  /** An index loaded inside a transaction that rolls back: it may hold that transaction's rows. */
  private drop(): void {
    this.index = undefined;
    this.saveAtCommit = false;
  }

  /** Whether a search with this filter needs the caller's admitted ids (attributes the index does not hold). */
  holds(filter: RecordFilter): boolean {
    return this.withIndex((index) => index.holds(filter));
  }

  search(text: string, filter: RecordFilter, k: number, admit?: (id: string) => boolean): KeywordMatch[] {
    return this.withIndex((index) => {
      const matches = index.search(text, filter, k, admit);
      // A restored index reads its other parts over the next searches (never the first: the cold start).
      if (this.searches++ > 0) index.readAhead(READ_AHEAD_PARTS);
      return matches;
    });
  }

  /**
   * Before the connection closes: saves the index when this connection logged many changes since it
   * was loaded or saved, loading it first (a rebuild or a catch-up, as a search would) when no search
   * did, so that the next process's first search restores it instead of rebuilding it (issue 30: a
   * bulk writer that never searched left every later cold start to rebuild). Few changes stay logged;
   * a failed load or save fails nothing (the changes stay logged and the next load catches up).
   */
  close(): void {
    if (!this.persist || this.unsaved < KEYWORD_SAVE_AFTER || this.db.inTransaction) return;
    try {
      // Another connection's commit since the load makes it load again; a load that re-read many saves itself.
      const index = this.load();
      if (this.unsaved >= KEYWORD_SAVE_AFTER) this.save(index);
    } catch {
      // e.g. SQLITE_FULL: nothing was written (the save is one transaction)
    }
  }

  /**
   * For `optimize` (maintenance/optimize.ts): loads the index as a search would (a restore caught up
   * on the changes logged since its save, or a rebuild) and saves it when that re-read anything or
   * the file holds no save. Skipped, as any save, when another process holds the write lock: the
   * caller looks at the file again. Errors are the caller's (no trySave).
   */
  saveNow(): void {
    if (!this.persist || this.db.inTransaction) return;
    const index = this.withIndex((loaded) => loaded);
    // Changes still logged count too: a rebuild that read no row (every memory deleted) re-read nothing.
    if (
      this.unsaved > 0 ||
      !this.db.prepare('SELECT 1 FROM keyword_snapshot WHERE id = 1').get() ||
      this.db.prepare('SELECT EXISTS (SELECT 1 FROM keyword_changes)').pluck().get()
    )
      this.save(index);
  }

  /** A save that never fails the caller: the changes stay logged and the next load catches up from them. */
  private trySave(index: KeywordIndex): void {
    try {
      this.save(index);
    } catch {
      // e.g. SQLITE_FULL: nothing was written (the save is one transaction)
    }
  }

  /** The index, loaded when it is not (or another connection committed since); `save`: save a load that re-read many records. */
  private load(save = true): KeywordIndex {
    const version = this.dataVersion.get() as number;
    if (version !== this.version) this.index = undefined; // another connection committed
    if (this.index) return this.index;
    const outside = !this.db.inTransaction;
    // One read transaction: the snapshot, the changes after it and the rows they name agree.
    if (outside) this.db.prepare('BEGIN').run();
    let index: KeywordIndex | undefined;
    let reread = 0;
    let loadedSave: number | undefined;
    try {
      const saved = this.db.prepare('SELECT generation, save, data FROM keyword_snapshot WHERE id = 1').get() as
        | { generation: number; save: number; data: Buffer }
        | undefined;
      if (saved && saved.save !== this.failedSave) {
        const part = this.db.prepare('SELECT data FROM keyword_parts WHERE part = ? AND save = ?').pluck();
        const parts = this.db
          .prepare('SELECT part, data FROM keyword_parts WHERE save = ? AND part IN (SELECT value FROM json_each(?))')
          .raw();
        index = readSnapshot(
          saved.data,
          (n) => {
            const data = part.get(n, saved.save) as Buffer | undefined;
            if (!data) throw new Error('gone: the file holds another save');
            return data;
          },
          // A search's id parts (~50 for 50 results) in one statement instead of one each.
          (ns) => {
            const found = new Map<number, Buffer>();
            for (const [n, data] of parts.iterate(saved.save, JSON.stringify(ns)) as Iterable<[number, Buffer]>)
              found.set(n, data);
            return ns.map((n) => {
              const data = found.get(n);
              if (!data) throw new Error('gone: the file holds another save');
              return data;
            });
          },
        );
        loadedSave = index ? saved.save : undefined;
      }
      if (index && saved) {
        const changed = new Set<string>();
        const logs = this.db
          .prepare('SELECT ids FROM keyword_changes WHERE generation > ? ORDER BY generation')
          .pluck()
          .iterate(saved.generation) as Iterable<string>;
        for (const ids of logs) for (const id of JSON.parse(ids) as string[]) changed.add(id);
        // Most of the records changed since: reading them all in one pass is cheaper than by id.
        if (changed.size > index.size / 2 + KEYWORD_SAVE_AFTER) index = undefined;
        else {
          try {
            reread = this.catchUp(index, [...changed]);
          } catch (error) {
            // A part that does not decode (the header and parts were read in this transaction): a rebuild.
            if (!(error instanceof KeywordPartError)) throw error;
            this.failedSave = saved.save;
            index = undefined;
          }
        }
      }
      if (!index) {
        loadedSave = undefined;
        index = new KeywordIndex();
        reread = this.addRows(
          index,
          this.db
            .prepare(
              `SELECT id, tenant, namespace, text, context, json_extract(attributes, ${COLUMN_PATHS}) FROM ${this.source()} WHERE text <> '' OR context <> ''`,
            )
            .raw()
            .iterate() as Iterable<Row>,
        );
      }
    } finally {
      if (outside) this.db.prepare('COMMIT').run();
    }
    this.index = index;
    this.version = version;
    this.loadedSave = loadedSave;
    this.searches = 0;
    this.unsaved = reread;
    if (!outside) {
      this.loadedInTransaction = true;
      this.saveAtCommit = save && this.persist && reread >= KEYWORD_SAVE_AFTER;
      index.begin();
    } else if (save && this.persist && reread >= KEYWORD_SAVE_AFTER) {
      this.trySave(index);
    }
    return index;
  }

  /** Re-reads the records with these ids into the index (those gone or without text leave it). */
  private catchUp(index: KeywordIndex, ids: readonly string[]): number {
    const read = this.db
      .prepare(
        `SELECT id, tenant, namespace, text, context, json_extract(attributes, ${COLUMN_PATHS}) FROM ${this.source()} ` +
          'WHERE id IN (SELECT value FROM json_each(?))',
      )
      .raw();
    for (let i = 0; i < ids.length; i += READ_CHUNK) {
      const chunk = ids.slice(i, i + READ_CHUNK);
      const found = new Set<string>();
      this.addRows(
        index,
        (function* () {
          for (const row of read.iterate(JSON.stringify(chunk)) as Iterable<Row>) {
            found.add(row[0]);
            yield row;
          }
        })(),
      );
      for (const id of chunk) if (!found.has(id)) index.remove(id);
    }
    return ids.length;
  }

  private addRows(index: KeywordIndex, rows: Iterable<Row>): number {
    let n = 0;
    for (const [id, tenant, namespace, text, context, values] of rows) {
      const parsed = JSON.parse(values) as AttributeValue[];
      const attributes: Record<string, AttributeValue> = {};
      KEYWORD_INDEX_COLUMNS.forEach((key, i) => {
        attributes[key] = parsed[i] ?? null;
      });
      index.set(id, { tenant, namespace, text, context, attributes });
      n++;
    }
    return n;
  }

  /**
   * Saves the index as of the latest generation, when it is the file's state: outside transactions,
   * under the write lock, and no other connection committed since it was loaded. Skipped (the
   * changes stay logged) when another process holds the lock: a search does not wait for a save.
   */
  private save(index: KeywordIndex): void {
    if (this.db.inTransaction || this.loadedInTransaction) return;
    if (!beginImmediateNow(this.db)) return;
    try {
      if (this.dataVersion.get() !== this.version || index !== this.index) {
        this.db.prepare('ROLLBACK').run();
        return;
      }
      const { header, parts } = index.toParts();
      const generation =
        (this.db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'keyword_changes'").pluck().get() as
          | number
          | undefined) ?? 0;
      // A new id for every save: a process holding another save's header finds none of these parts.
      const save = Math.floor(Math.random() * 2 ** 52);
      this.db.prepare('DELETE FROM keyword_parts').run();
      const insert = this.db.prepare('INSERT INTO keyword_parts (part, save, data) VALUES (?, ?, ?)');
      for (const [n, bytes] of parts.entries()) insert.run(n, save, asBuffer(bytes));
      this.db
        .prepare('INSERT OR REPLACE INTO keyword_snapshot (id, generation, save, data) VALUES (1, ?, ?, ?)')
        .run(generation, save, asBuffer(header));
      this.db.prepare('DELETE FROM keyword_changes WHERE generation <= ?').run(generation);
      this.db.prepare('COMMIT').run();
      this.unsaved = 0;
      this.loadedSave = undefined; // the index read all its parts to save them: it reads none again
    } catch (error) {
      if (this.db.inTransaction) this.db.prepare('ROLLBACK').run();
      throw error;
    }
  }
}

/** The saved index, or undefined (a rebuild, saved again) when its header or first part cannot be read: the records are the truth. */
function readSnapshot(
  header: Buffer,
  read: (part: number) => Uint8Array,
  readMany: (parts: readonly number[]) => Uint8Array[],
): KeywordIndex | undefined {
  try {
    return KeywordIndex.fromParts(header, read, { readMany });
  } catch {
    return undefined;
  }
}

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
