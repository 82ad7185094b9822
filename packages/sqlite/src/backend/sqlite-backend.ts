import { resolve } from 'node:path';
import {
  AgentMemoryError,
  type AttributePage,
  type AttributeScanOptions,
  type BackendCapabilities,
  type BackendInitOptions,
  type BackendRecord,
  invalidInput,
  type LinkedKey,
  type LinkKeysOptions,
  type LinkKeysPage,
  type LinkQuery,
  type LoggedPatches,
  type MemoryBackend,
  type NamespaceCount,
  type OptimizeOptions,
  type OptimizeReport,
  type RecordFilter,
  type RecordPatch,
  type ScanOptions,
  type ScanPage,
  type SearchHit,
  type SearchRequest,
  searchRequestK,
} from '@agentmem/core';
import type Database from 'better-sqlite3';
import { SqliteKeywordIndex } from '../keyword';
import { SqliteEntityLinks } from '../links';
import { optimizeStore } from '../maintenance/optimize';
import { compileFilter, SqlBuilder } from '../query';
import * as reads from '../read';
import type { ReadSource } from '../records';
import {
  CACHE_KIB,
  isAgentmemDatabase,
  isInMemoryPath,
  isSqliteError,
  openDatabase,
  VECTOR_SPACE_TABLE,
  WRITE_CACHE_KIB,
} from '../schema';
import { approximateDenseSearch, hitColumns, keywordSearch, knnDenseSearch, partialAttributes } from '../search';
import type { StoreContext } from '../store';
import { SqliteDenseIndex } from '../vector';
import * as writes from '../write';
import { acquireGate, releaseGate, type TransactionGate } from './transaction-gate';

export interface SqliteBackendOptions {
  /** Database file (created with its parent directory when missing), or `':memory:'`. */
  path: string;
  /** How long a write waits for another process's write lock before failing. Default 5000 ms. */
  busyTimeoutMs?: number;
  /** Open without writing anything (no migrations, writes refused). Default false. */
  readonly?: boolean;
  /**
   * With `readonly`: no process writes the file while it is open (a snapshot handed to a merge), so a
   * WAL-mode file is read in place without locks instead of copied into memory. Default false.
   */
  finished?: boolean;
  /**
   * `approximate` (default): dense search picks candidates by the Hamming
   * distance of sign-bit codes in an in-process index and ranks them by exact
   * cosine (recall@10 >= 0.98 of exact on the bench corpus, docs/benchmarks.md);
   * sparse (lexical) vectors are always searched exactly. `exact`: every
   * vector of the scope is compared (sqlite-vec).
   */
  denseSearch?: 'approximate' | 'exact';
  /**
   * Bytes of the file read through mmap. Default 16 MiB: every mapped page
   * a process touched counts in its resident memory; exact dense search over
   * large stores reads faster with more (docs/sqlite.md).
   */
  mmapBytes?: number;
}

const STATEMENT_CACHE = 200;
/** The savepoint that is the outermost transaction of `transaction()` (beginOutermost). */
const OUTERMOST = 'agentmem_tx';

/**
 * The embedded default backend: one SQLite file holding records, vectors
 * (sqlite-vec, and sign-bit codes for the in-process binary index) and the
 * text the in-process keyword index is built from, in WAL mode so that several
 * processes can share it. Implements MemoryBackend v1.
 */
export class SqliteBackend implements MemoryBackend {
  readonly specificationVersion = 'v1' as const;
  readonly provider = 'sqlite';
  readonly capabilities: BackendCapabilities = {
    nativeHybrid: false,
    textSearch: true,
    transactions: true,
    persistent: true,
    snapshot: false,
    readonly: false,
    links: true,
    partialHits: true,
  };
  /** Absolute path of the database file, or `':memory:'`. */
  readonly path: string;
  readonly readonly: boolean;

  /** True when `path` is an agentmem SQLite file (reads its header only). */
  static isAgentmemDatabase(path: string): boolean {
    return isAgentmemDatabase(path);
  }

  private readonly db: Database.Database;
  private readonly gate: TransactionGate;
  private readonly gateKey: string | undefined;
  private readonly statements = new Map<string, Database.Statement>();
  private dimension: number | undefined;
  /** A read-only file without vectors cannot get a vector index: the dimension init() asked for. */
  private readonlyDimension: number | undefined;
  private closed = false;
  private savepoints = 0;
  /** `total_changes()` when the outermost transaction began (beginOutermost). */
  private outermostChanges = 0;
  private readonly totalChanges: Database.Statement;
  private readonly denseMode: 'approximate' | 'exact';
  private codes: SqliteDenseIndex | undefined;
  /** The in-process keyword index (BM25F), kept in step with this connection's writes. */
  private readonly keywords: SqliteKeywordIndex;
  /** Whether any logged change is pending (see `source`): one index probe. */
  private readonly pendingChanges: Database.Statement;
  /** What the rooms (read, write, search) share of this connection. */
  private readonly ctx: StoreContext;

  constructor(options: SqliteBackendOptions) {
    if (!options || typeof options.path !== 'string' || options.path.trim() === '') {
      throw invalidInput("SqliteBackend needs { path }: a file such as './.agentmem/memory.db', or ':memory:'.");
    }
    const memory = isInMemoryPath(options.path);
    this.path = memory ? ':memory:' : resolve(options.path);
    this.readonly = options.readonly ?? false;
    this.capabilities = { ...this.capabilities, readonly: this.readonly };
    this.denseMode = options.denseSearch ?? 'approximate';
    if (this.denseMode !== 'approximate' && this.denseMode !== 'exact')
      throw invalidInput(`denseSearch is 'approximate' or 'exact', got ${JSON.stringify(options.denseSearch)}.`);
    if (options.mmapBytes !== undefined && !(Number.isSafeInteger(options.mmapBytes) && options.mmapBytes >= 0))
      throw invalidInput(
        `mmapBytes is a whole number of bytes (0: no mmap), got ${JSON.stringify(options.mmapBytes)}.`,
      );
    this.db = openDatabase(options.path, {
      readonly: this.readonly,
      finished: options.finished,
      busyTimeoutMs: options.busyTimeoutMs,
      mmapBytes: options.mmapBytes,
    });
    this.gateKey = memory ? undefined : this.path;
    this.gate = acquireGate(this.gateKey);
    this.pendingChanges = this.db.prepare('SELECT EXISTS (SELECT 1 FROM logged_changes)').pluck();
    this.totalChanges = this.db.prepare('SELECT total_changes()').pluck();
    this.keywords = new SqliteKeywordIndex(this.db, () => this.source(false), !this.readonly && !memory);
    this.dimension = this.readDimension();
    this.ctx = {
      db: this.db,
      path: this.path,
      keywords: this.keywords,
      links: new SqliteEntityLinks(this.db),
      stmt: (sql) => this.stmt(sql),
      hasPending: () => Boolean(this.pendingChanges.get()),
      source: (withLogs) => this.source(withLogs),
      snapshot: (fn) => this.snapshot(fn),
      readSnapshot: (fn) => this.readSnapshot(fn),
      write: (fn) => this.write(fn),
      hasVectorTable: () => this.hasVectorTable(),
      denseIndex: () => this.denseIndex(),
      checkDimension: (v) => this.checkDimension(v),
      frame: () => this.gate.current(),
      writes: 0,
      scanMemo: undefined,
    };
  }

  /** The underlying better-sqlite3 connection, for building blocks such as snapshots. Do not close it. */
  get database(): Database.Database {
    this.assertOpen();
    return this.db;
  }

  /** Dimension of the vector index, once `init` created it (or the file had one). */
  get vectorDimension(): number | undefined {
    return this.dimension;
  }

  async init(options: BackendInitOptions): Promise<void> {
    const dimension = options?.dimension;
    if (!Number.isInteger(dimension) || dimension < 1) {
      throw invalidInput(`init() needs a positive integer dimension, got ${JSON.stringify(dimension)}.`);
    }
    const existing = this.dimension ?? (await this.read(() => this.readDimension()));
    if (existing !== undefined) {
      this.dimension = existing;
      if (existing !== dimension) {
        throw new AgentMemoryError(
          'DIMENSION_MISMATCH',
          `${this.path} holds ${existing}-dimensional vectors; it cannot take ${dimension}. Use an embedder of dimension ${existing}, or a new file and re-embed (snapshot + merge with reembed).`,
          { details: { path: this.path, expected: existing, actual: dimension } },
        );
      }
      return;
    }
    if (this.readonly) {
      this.readonlyDimension = dimension; // nothing to search; writes are refused anyway
      return;
    }
    await this.write(() => {
      const current = this.readDimension(); // another process may have created it meanwhile
      if (current === undefined)
        this.stmt(`INSERT INTO ${VECTOR_SPACE_TABLE} (id, dimension) VALUES (1, ?)`).run(dimension);
      this.dimension = current ?? dimension;
    });
    if (this.dimension !== dimension) return this.init(options);
  }

  async upsert(records: readonly BackendRecord[]): Promise<void> {
    return writes.upsert(this.ctx, records);
  }

  /** Rewrites attributes (merged key by key) and payload only; the text and vector indexes are not touched. */
  async patch(patches: readonly RecordPatch[]): Promise<number> {
    return writes.patch(this.ctx, patches);
  }

  /** Compare-and-set patches, each with its log record (write/logged-patches.ts). */
  async patchLogged(batch: LoggedPatches): Promise<string[]> {
    return writes.patchLogged(this.ctx, batch);
  }

  /**
   * This connection's row changes (`total_changes()`, rolled back ones too) and other connections'
   * commits (`PRAGMA data_version`): equal marks, no record was written in between.
   */
  async writeMark(): Promise<string> {
    return this.read(() => {
      const [version, changes] = this.stmt('SELECT (SELECT data_version FROM pragma_data_version), total_changes()')
        .raw()
        .get() as [number, number];
      return `${version}:${changes}`;
    });
  }

  async get(
    ids: readonly string[],
    options: { tenant?: string | null; withVectors?: boolean } = {},
  ): Promise<BackendRecord[]> {
    return reads.get(this.ctx, ids, options);
  }

  async delete(ids: readonly string[]): Promise<number> {
    return writes.deleteRecords(this.ctx, ids);
  }

  async vectors(ids: readonly string[], options: { tenant?: string | null } = {}): Promise<Map<string, Float32Array>> {
    return reads.vectors(this.ctx, ids, options);
  }

  async scan(options: ScanOptions): Promise<ScanPage> {
    return reads.scan(this.ctx, options);
  }

  /** Ids, scope and attributes only, in rowid order (the cursor is the last rowid): no text or payload is read. */
  async scanAttributes(options: AttributeScanOptions): Promise<AttributePage> {
    return reads.scanAttributes(this.ctx, options);
  }

  async count(filter: RecordFilter): Promise<number> {
    return reads.count(this.ctx, filter);
  }

  async namespaces(options: { tenant?: string | null } = {}): Promise<NamespaceCount[]> {
    return reads.namespaces(this.ctx, options);
  }

  async search(request: SearchRequest): Promise<SearchHit[]> {
    const k = searchRequestK(request, 'SqliteBackend');
    if (request.mode === 'dense') {
      if (!(request.vector instanceof Float32Array))
        throw invalidInput('A dense search needs `vector` (a Float32Array).');
      if (this.dimension === undefined) this.dimension = await this.read(() => this.readDimension());
      if (this.dimension === undefined && this.readonlyDimension === undefined) {
        throw invalidInput('Call init({ dimension }) before searching vectors.');
      }
      this.checkDimension(request.vector);
      compileFilter(request.filter, new SqlBuilder()); // validates before waiting
      const columns = hitColumns(partialAttributes(request.partial));
      if (k === 0 || this.dimension === undefined) return [];
      return this.read(
        () =>
          (this.denseMode === 'approximate'
            ? approximateDenseSearch(this.ctx, request.vector!, request.filter, k, columns)
            : undefined) ?? knnDenseSearch(this.ctx, request.vector!, request.filter, k, undefined, columns),
      );
    }
    if (request.mode !== 'keyword')
      throw invalidInput(`Unknown search mode ${JSON.stringify(request.mode)}: use dense or keyword.`);
    if (typeof request.text !== 'string') throw invalidInput('A keyword search needs `text`.');
    const where = compileFilter(request.filter, new SqlBuilder()); // validates before waiting
    if (k === 0 || !where.satisfiable) return [];
    return this.read(() => keywordSearch(this.ctx, request.text!, request.filter, k));
  }

  async linked(query: LinkQuery): Promise<LinkedKey[]> {
    return this.readSnapshot(() => this.ctx.links.linked(query));
  }

  async linkKeys(options: LinkKeysOptions): Promise<LinkKeysPage> {
    return this.readSnapshot(() => this.ctx.links.linkKeys(options));
  }

  async getMeta(key: string): Promise<string | undefined> {
    if (typeof key !== 'string') throw invalidInput('Meta keys are strings.');
    return this.read(
      () => (this.stmt('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined)?.value,
    );
  }

  async setMeta(key: string, value: string): Promise<void> {
    if (typeof key !== 'string' || typeof value !== 'string') throw invalidInput('Meta keys and values are strings.');
    await this.write(() => {
      this.stmt(
        'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
      ).run(key, value);
    });
  }

  /**
   * All or nothing, in one transaction that holds the file's write lock from
   * its start while `fn` runs, as `BEGIN IMMEDIATE` (keep it short: other
   * processes wait, up to busyTimeoutMs). Nested calls become savepoints; calls
   * from outside `fn` wait until it ends.
   */
  async transaction<T>(fn: () => Promise<T>): Promise<T> {
    if (typeof fn !== 'function') throw invalidInput('transaction() takes an async function.');
    this.assertWritable();
    const parent = this.insideFrame();
    if (parent) {
      const name = `agentmem_tx_${++this.savepoints}`;
      let mark = 0;
      let keywordMark = 0;
      return this.gate.nested(
        parent,
        () => {
          this.exec(`SAVEPOINT ${name}`);
          mark = this.codes?.mark() ?? 0;
          keywordMark = this.keywords.mark();
        },
        fn,
        (ok) => {
          if (!ok) {
            this.exec(`ROLLBACK TO ${name}`);
            this.codes?.rollbackTo(mark);
            this.keywords.rollbackTo(keywordMark);
          }
          this.exec(`RELEASE ${name}`);
        },
      );
    }
    return this.gate.exclusive(
      this,
      () => {
        this.assertOpen();
        this.beginOutermost();
        this.keywords.mark();
      },
      fn,
      (ok) => {
        try {
          this.endOutermost(ok);
        } finally {
          // Its pages are clean now: the cache shrinks back, and SQLite frees those past CACHE_KIB.
          if (this.db.open) this.stmt(`PRAGMA cache_size = -${CACHE_KIB}`).run();
        }
      },
    );
  }

  /** Commits (`ok`) or rolls back the outermost transaction, and tells the in-process indexes. */
  private endOutermost(ok: boolean): void {
    if (ok) {
      try {
        this.exec('COMMIT');
        this.codes?.committed();
        this.keywords.committed();
        return;
      } catch (error) {
        this.rollBackOutermost();
        throw error;
      }
    }
    this.rollBackOutermost();
  }

  /** Rolls back the outermost transaction (if a failed COMMIT left it open) and the in-process indexes with it. */
  private rollBackOutermost(): void {
    if (this.db.inTransaction) this.db.exec('ROLLBACK');
    this.codes?.rolledBack();
    this.keywords.rolledBack();
  }

  /**
   * The maintenance step (`agentmem optimize`; maintenance/optimize.ts): finishes a sparse index's
   * build slice by slice, saves the keyword and dense indexes so that nothing is logged since their
   * saves and checkpoints the WAL (TRUNCATE); `vacuum` also VACUUMs. Each
   * step is a transaction of its own (a kill keeps the steps done); the signal is checked between
   * them. Refused on a read-only connection and inside a transaction.
   */
  async optimize(options: OptimizeOptions = {}): Promise<OptimizeReport> {
    this.assertOpen();
    if (options === null || typeof options !== 'object')
      throw invalidInput('optimize() takes { vacuum?, abortSignal?, onProgress? }.');
    if (options.vacuum !== undefined && typeof options.vacuum !== 'boolean')
      throw invalidInput(`optimize's vacuum is true or false, got ${JSON.stringify(options.vacuum)}.`);
    if (options.abortSignal !== undefined && !(options.abortSignal instanceof AbortSignal))
      throw invalidInput("optimize's abortSignal is an AbortSignal (new AbortController().signal).");
    if (options.onProgress !== undefined && typeof options.onProgress !== 'function')
      throw invalidInput("optimize's onProgress is a function, called with { step, slicesBuilt, ... } as it goes.");
    if (this.readonly) {
      throw new AgentMemoryError(
        'INVALID_INPUT',
        `${this.path} was opened read-only; open it without { readonly: true } to optimize it (optimize saves its indexes into the file).`,
        { details: { path: this.path } },
      );
    }
    if (this.insideFrame())
      throw invalidInput(
        'optimize() cannot run inside a transaction: call it outside (each of its steps is a transaction).',
      );
    try {
      return await optimizeStore(
        {
          db: this.db,
          path: this.path,
          keywords: this.keywords,
          denseIndex: () => this.denseIndex(),
          dimension: () => (this.hasVectorTable() ? this.dimension : undefined),
          idle: async () => {
            await this.gate.idle();
            this.assertOpen();
          },
        },
        options,
      );
    } catch (error) {
      throw this.mapError(error);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    if (!this.insideFrame()) await this.gate.idle();
    if (this.closed) return;
    if (!this.readonly) {
      this.keywords.close();
      this.codes?.close();
    }
    this.closed = true;
    this.statements.clear();
    releaseGate(this.gateKey);
    this.db.close();
  }

  // ------------------------------------------------------------------ internals

  /** Runs a read once no transaction of another caller is open. */
  private async read<T>(fn: () => T): Promise<T> {
    this.assertOpen();
    if (!this.insideFrame()) await this.gate.idle();
    this.assertOpen();
    try {
      return fn();
    } catch (error) {
      throw this.mapError(error);
    }
  }

  /**
   * Opens the outermost transaction of `transaction()` as a savepoint that is the transaction itself
   * (`SAVEPOINT` outside any transaction), then takes the write lock at once with a statement that
   * writes nothing, as `BEGIN IMMEDIATE` would (the same lock, busy timeout and errors). Rolling back to
   * a transaction's own savepoint needs no journal of its own in WAL mode, so the first write inside it
   * needs no savepoint of its own either (write): a nested savepoint copied every page it changed that
   * was in the file before (the random pages of the id, scope and content-hash indexes of a bulk
   * insert) to a temporary sub-journal file first (issue 30, ingest-sql).
   */
  private beginOutermost(): void {
    try {
      this.exec(`SAVEPOINT ${OUTERMOST}`);
      this.stmt('DELETE FROM meta WHERE 0').run();
      // A bulk write's batch in one transaction: a page cache that holds it (WRITE_CACHE_KIB), until its end.
      this.stmt(`PRAGMA cache_size = -${WRITE_CACHE_KIB}`).run();
    } catch (error) {
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      throw this.mapError(error);
    }
    this.outermostChanges = this.totalChanges.get() as number;
  }

  /**
   * A read whose statements (the probe of pending changes, then the query it picks) see one snapshot
   * of the file: outside a transaction each statement would see the commits made meanwhile by other
   * processes. Not for reads that load the in-process indexes (they load outside transactions only).
   */
  private async readSnapshot<T>(fn: () => T): Promise<T> {
    return this.read(() => this.snapshot(fn));
  }

  private snapshot<T>(fn: () => T): T {
    if (this.db.inTransaction) return fn();
    // Prepared once (cached): recall runs several of these reads, and exec() parses its text every time.
    this.stmt('BEGIN').run();
    try {
      return fn();
    } finally {
      this.stmt('COMMIT').run(); // a read-only transaction: nothing to fail
    }
  }

  /** Runs a write atomically: its own immediate transaction, or a savepoint inside the caller's. */
  private async write<T>(fn: () => T): Promise<T> {
    this.assertWritable();
    this.ctx.writes++;
    const frame = this.insideFrame();
    const inside = frame !== undefined;
    if (!inside) await this.gate.idle();
    this.assertOpen();
    // The first write of a transaction() whose outermost savepoint nothing has changed yet: undoing it
    // is rolling back to that savepoint, so no savepoint (and sub-journal) of its own (beginOutermost).
    const first = frame !== undefined && frame.root === undefined && !frame.wrote && this.unchanged();
    const [begin, commit, rollback] = first
      ? [undefined, undefined, `ROLLBACK TO ${OUTERMOST}`]
      : inside
        ? ['SAVEPOINT agentmem_op', 'RELEASE agentmem_op', 'ROLLBACK TO agentmem_op; RELEASE agentmem_op']
        : ['BEGIN IMMEDIATE', 'COMMIT', 'ROLLBACK'];
    if (frame) (frame.root ?? frame).wrote = true;
    try {
      if (begin) this.exec(begin);
    } catch (error) {
      throw this.mapError(error);
    }
    const mark = this.codes?.mark() ?? 0;
    const keywordMark = this.keywords.mark();
    try {
      const result = fn();
      this.keywords.flush();
      this.codes?.flush();
      if (commit) this.exec(commit);
      if (!inside) {
        this.codes?.committed();
        this.keywords.committed();
      }
      return result;
    } catch (error) {
      if (this.db.inTransaction) this.db.exec(rollback);
      if (first) frame.wrote = false; // rolled back to the transaction's start: unchanged again
      if (inside) {
        this.codes?.rollbackTo(mark);
        this.keywords.rollbackTo(keywordMark);
      } else {
        this.codes?.rolledBack();
        this.keywords.rolledBack();
      }
      throw this.mapError(error);
    }
  }

  /** Whether no row changed since the outermost transaction began (beginOutermost): `total_changes()` counts every one. */
  private unchanged(): boolean {
    return this.totalChanges.get() === this.outermostChanges;
  }

  private insideFrame() {
    const frame = this.gate.current();
    if (frame && frame.owner !== this) {
      throw new AgentMemoryError(
        'INVALID_INPUT',
        `This call runs inside a transaction opened by another SqliteBackend on ${this.path}; use that backend inside its transaction.`,
      );
    }
    return frame;
  }

  private exec(sql: string): void {
    this.db.exec(sql);
  }

  private stmt(sql: string): Database.Statement {
    let s = this.statements.get(sql);
    if (!s) {
      if (this.statements.size >= STATEMENT_CACHE) this.statements.clear();
      s = this.db.prepare(sql);
      this.statements.set(sql, s);
    }
    return s;
  }

  /**
   * What reads select from: `records` itself while no logged change is pending (the common case,
   * which keeps every index usable), else `records_now` (pending changes merged into their records)
   * or, for reads that may return log records, `records_all` (those too).
   */
  private source(withLogs: boolean): ReadSource {
    if (!this.pendingChanges.get()) return 'records';
    return withLogs ? 'records_all' : 'records_now';
  }
  /** Whether the vector index exists; another process may have created it since this one opened. */
  private hasVectorTable(): boolean {
    this.dimension ??= this.readDimension();
    return this.dimension !== undefined;
  }

  private readDimension(): number | undefined {
    return this.stmt(`SELECT dimension FROM ${VECTOR_SPACE_TABLE} WHERE id = 1`).pluck().get() as number | undefined;
  }

  /** The binary index of this connection, once the file has vectors. */
  private denseIndex(): SqliteDenseIndex | undefined {
    if (this.codes === undefined && this.hasVectorTable())
      this.codes = new SqliteDenseIndex(this.db, this.dimension!, !this.readonly && this.path !== ':memory:');
    return this.codes;
  }

  private checkDimension(v: Float32Array): void {
    const dimension = this.dimension ?? this.readonlyDimension;
    if (v.length !== dimension) {
      throw new AgentMemoryError(
        'DIMENSION_MISMATCH',
        `Vector has ${v.length} dimensions but ${this.path} holds ${dimension}. Use the embedder the store was built with, or re-embed into a new store.`,
        { details: { path: this.path, expected: dimension, actual: v.length } },
      );
    }
  }

  private assertOpen(): void {
    if (this.closed)
      throw new AgentMemoryError('CLOSED', `The SqliteBackend on ${this.path} is closed; open a new one.`);
  }

  private assertWritable(): void {
    this.assertOpen();
    if (this.readonly) {
      throw new AgentMemoryError(
        'INVALID_INPUT',
        `${this.path} was opened read-only; open it without { readonly: true } to write.`,
      );
    }
  }

  private mapError(error: unknown): unknown {
    if (AgentMemoryError.isInstance(error)) return error;
    if (isSqliteError(error, 'SQLITE_BUSY', 'SQLITE_LOCKED')) {
      return new AgentMemoryError(
        'TIMEOUT',
        `${this.path} stayed locked by another writer for longer than the busy timeout. Retry, keep transactions short, or raise busyTimeoutMs.`,
        { cause: error, details: { path: this.path } },
      );
    }
    if (isSqliteError(error, 'SQLITE_NOTADB', 'SQLITE_CORRUPT')) {
      return new AgentMemoryError(
        'NOT_A_DATABASE',
        `${this.path} is damaged (${(error as Error).message}). Restore it from a snapshot.`,
        {
          cause: error,
          details: { path: this.path },
        },
      );
    }
    if (isSqliteError(error, 'SQLITE_FULL', 'SQLITE_IOERR', 'SQLITE_CANTOPEN', 'SQLITE_READONLY')) {
      return new AgentMemoryError('BACKEND_UNAVAILABLE', `Cannot write ${this.path}: ${(error as Error).message}.`, {
        cause: error,
        details: { path: this.path },
      });
    }
    if (isSqliteError(error, 'SQLITE')) {
      return new AgentMemoryError('BACKEND_ERROR', `SQLite error on ${this.path}: ${(error as Error).message}`, {
        cause: error,
      });
    }
    return error;
  }
}
