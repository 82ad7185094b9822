import type Database from 'better-sqlite3';
import type { SqliteKeywordIndex } from '../keyword';
import type { SqliteEntityLinks } from '../links';
import type { ReadSource } from '../records';
import type { SqliteDenseIndex } from '../vector';

/**
 * What the rooms of the backend (read, write, search) share of one open
 * connection: SqliteBackend builds it and owns its lifecycle, transactions
 * and error mapping; the rooms only run statements inside the frames it opens.
 */
export interface StoreContext {
  readonly db: Database.Database;
  /** Absolute path of the database file, or `':memory:'` (for messages). */
  readonly path: string;
  /** The in-process keyword index (BM25F), kept in step with this connection's writes. */
  readonly keywords: SqliteKeywordIndex;
  /** Memory <-> entity links, in tables of their own. */
  readonly links: SqliteEntityLinks;
  /** A prepared statement from the connection's cache. */
  stmt(sql: string): Database.Statement;
  /** Whether any logged change is pending (one index probe). */
  hasPending(): boolean;
  /**
   * What reads select from: `records` itself while no logged change is pending (the common case,
   * which keeps every index usable), else `records_now` (pending changes merged into their records)
   * or, for reads that may return log records, `records_all` (those too).
   */
  source(withLogs: boolean): ReadSource;
  /** Runs `fn`'s statements in one read snapshot of the file (inside the current transaction if any). */
  snapshot<T>(fn: () => T): T;
  /** A read (waiting for other callers' transactions) whose statements see one snapshot. */
  readSnapshot<T>(fn: () => T): Promise<T>;
  /** Runs a write atomically: its own immediate transaction, or a savepoint inside the caller's. */
  write<T>(fn: () => T): Promise<T>;
  /** Whether the vector index exists; another process may have created it since this one opened. */
  hasVectorTable(): boolean;
  /** The binary index of this connection, once the file has vectors. */
  denseIndex(): SqliteDenseIndex | undefined;
  /** Throws DIMENSION_MISMATCH for a vector of another dimension than the file's. */
  checkDimension(v: Float32Array): void;
  /** The transaction frame of this backend the caller runs in, if any. */
  frame(): object | undefined;
  /** Write calls so far: a change of it tells `scanMemo` that rows may have changed since. */
  writes: number;
  /**
   * What the last `scanAttributes` inside a transaction of this backend returned (the transaction
   * holds the file's write lock): while no write has happened since, in the same transaction, those
   * are the stored values, and `patchLogged` compares its expected values with them instead of
   * reading the rows again.
   */
  scanMemo: ScanMemo | undefined;
}

/** What scanAttributes returned inside a transaction (see `StoreContext.scanMemo`). */
export interface ScanMemo {
  frame: object;
  writes: number;
  /** The attributes read, by name: their index in each row's values. */
  names: ReadonlyMap<string, number>;
  /** By id: rowid, status column, the named attributes' values (rows without a pending change only). */
  rows: Map<string, { rowid: number; status: unknown; values: readonly unknown[] }>;
}
