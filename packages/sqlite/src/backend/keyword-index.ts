import {
  type AttributeValue,
  type BackendRecord,
  KEYWORD_INDEX_COLUMNS,
  KeywordIndex,
  type KeywordMatch,
  type RecordFilter,
} from '@agentmem/core';
import type Database from 'better-sqlite3';

/** The JSON paths of the attributes the index holds, read in one json_extract (a JSON array). */
const COLUMN_PATHS = KEYWORD_INDEX_COLUMNS.map((key) => `'$."${key}"'`).join(', ');

/**
 * The in-process keyword index of one SQLite connection (core's KeywordIndex:
 * BM25F, the same ranking as the in-memory backend), built from
 * the `records` table on first use. The file is the truth: this connection's
 * writes reach the index as they happen, journaled so that a rollback (of the
 * transaction or of a savepoint) takes them back; other connections' commits
 * (`PRAGMA data_version` changes) make it load again.
 */
export class SqliteKeywordIndex {
  private index: KeywordIndex | undefined;
  private version: number | undefined;
  /** Loaded inside the open transaction: it may hold rows a rollback takes back. */
  private loadedInTransaction = false;

  /** Prepared once: `db.pragma()` prepares its statement on every call, and every search asks. */
  private readonly dataVersion: Database.Statement;

  /** `source()` names what to load from: records, or the view that merges pending logged changes in. */
  constructor(
    private readonly db: Database.Database,
    private readonly source: () => string = () => 'records',
  ) {
    this.dataVersion = db.prepare('PRAGMA data_version').pluck();
  }

  /** Inside the caller's write transaction: these records were written (validated). */
  written(records: readonly BackendRecord[]): void {
    if (!this.index) return;
    for (const r of records) this.index.set(r.id, r);
  }

  /** Inside the caller's write transaction: these attributes were merged into the record (undefined keys untouched). */
  patched(id: string, attributes: Readonly<Record<string, AttributeValue | undefined>> | undefined): void {
    if (!this.index || !attributes) return;
    const defined: Record<string, AttributeValue> = {};
    for (const [key, value] of Object.entries(attributes)) if (value !== undefined) defined[key] = value;
    this.index.setAttributes(id, defined);
  }

  /** Inside the caller's write transaction: these records are gone. */
  deleted(ids: readonly string[]): void {
    if (!this.index) return;
    for (const id of ids) this.index.remove(id);
  }

  /** A transaction or savepoint begins: the position to roll back to. */
  mark(): number {
    return this.index?.begin() ?? 0;
  }

  rollbackTo(mark: number): void {
    if (this.loadedInTransaction) this.index = undefined;
    else this.index?.rollback(mark);
  }

  committed(): void {
    this.loadedInTransaction = false;
    this.index?.commit();
  }

  rolledBack(): void {
    if (this.loadedInTransaction) this.index = undefined;
    this.loadedInTransaction = false;
    this.index?.rollback();
  }

  /** Whether a search with this filter needs the caller's admitted ids (attributes the index does not hold). */
  holds(filter: RecordFilter): boolean {
    return this.load().holds(filter);
  }

  search(text: string, filter: RecordFilter, k: number, admit?: (id: string) => boolean): KeywordMatch[] {
    return this.load().search(text, filter, k, admit);
  }

  private load(): KeywordIndex {
    const version = this.dataVersion.get() as number;
    if (version !== this.version) this.index = undefined; // another connection committed
    if (this.index) return this.index;
    const index = new KeywordIndex();
    const rows = this.db
      .prepare(
        `SELECT id, tenant, namespace, text, context, json_extract(attributes, ${COLUMN_PATHS}) FROM ${this.source()} WHERE text <> '' OR context <> ''`,
      )
      .raw()
      .iterate() as Iterable<[string, string, string, string, string, string]>;
    for (const [id, tenant, namespace, text, context, values] of rows) {
      const parsed = JSON.parse(values) as AttributeValue[];
      const attributes: Record<string, AttributeValue> = {};
      KEYWORD_INDEX_COLUMNS.forEach((key, i) => {
        attributes[key] = parsed[i] ?? null;
      });
      index.set(id, { tenant, namespace, text, context, attributes });
    }
    this.index = index;
    this.version = version;
    if (this.db.inTransaction) {
      this.loadedInTransaction = true;
      index.begin();
    }
    return index;
  }
}
