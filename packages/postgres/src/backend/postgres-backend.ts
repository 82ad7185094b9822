// The MemoryBackend contract on PostgreSQL, one method per contract call. The class holds the pool,
// the transaction frames (AsyncLocalStorage) and the retry policy that every call runs through; the
// SQL it sends is built in ../query, ../schema and ../links, rows are read in ./record-row.ts and
// errors classified in ./faults.ts.
import { AsyncLocalStorage } from 'node:async_hooks';
import {
  AgentMemoryError,
  type BackendCapabilities,
  type BackendInitOptions,
  type BackendRecord,
  checkAttributeValue,
  invalidInput,
  type JsonObject,
  type LinkedKey,
  type LinkKeysOptions,
  type LinkKeysPage,
  type LinkQuery,
  type MemoryBackend,
  type NamespaceCount,
  type RecordFilter,
  type RecordPatch,
  type ScanOptions,
  type ScanPage,
  type SearchHit,
  type SearchRequest,
  searchRequestK,
} from '@agentmem/core';
import pg from 'pg';
import { encodeLinks, linked, linkKeys, withLinks, writeLinks } from '../links';
import {
  RECORD_COLUMNS as COLUMNS,
  compileFilter,
  type KeywordRanking,
  keywordStatement,
  occurredAtColumn,
  SqlBuilder,
  termsVector,
} from '../query';
import { migrate, type TableNames, tableNames } from '../schema';
import { describeTarget, locationParams } from './connection-target';
import { backoffMs, classify, connectionBroken, DEFAULT_RETRY, type RetryPolicy, toAgentMemoryError } from './faults';
import { checkPayload, decode, type RecordRow, vectorLiteral } from './record-row';

export interface PostgresBackendOptions {
  /** `postgres://user:password@host:5432/database`; the backend owns (and ends) the pool it creates. */
  connectionString?: string;
  /** A pool you own instead (not ended by `close()`). */
  pool?: pg.Pool;
  /** Schema of the store's tables (created when missing). Default `public`, or `?schema=` of the connection string. */
  schema?: string;
  /** Records table; its meta and migrations tables take it as prefix. Default `agentmem_records`, or `?table=`. */
  table?: string;
  /** Connections of the pool the backend creates. Default 10. */
  maxConnections?: number;
  /** Server-side statement_timeout of the pool the backend creates, and the client's read timeout (+2 s). Default 30 000; 0 disables. */
  statementTimeoutMs?: number;
  /** Retries (outside transactions) of connection failures and aborted transactions. */
  retry?: Partial<RetryPolicy>;
  /** HNSW build parameters (m, ef_construction) and the minimum ef_search of every dense query. */
  hnsw?: { m?: number; efConstruction?: number; efSearch?: number };
  /** Keyword relevance: BM25 from the table's term statistics (default) or Postgres' ts_rank_cd. */
  keywordRanking?: KeywordRanking;
}

/** pgvector's HNSW indexes `vector` columns of at most 2,000 dimensions; larger ones are searched exactly. */
export const HNSW_MAX_DIMENSION = 2000;
const DEFAULT_PAGE = 500;
const MAX_PAGE = 10_000;
const WRITE_BATCH = 500;
const DEFAULT_EF_SEARCH = 40;

interface Frame {
  owner: PostgresBackend;
  client: pg.PoolClient;
  savepoints: number;
  /** Serialises this transaction's multi-statement operations on its one connection. */
  queue: Promise<unknown>;
}

type Query = (text: string, values?: unknown[]) => Promise<pg.QueryResult>;

/**
 * A MemoryBackend on PostgreSQL with pgvector: one table per store (tenant and
 * namespace as indexed columns), an HNSW index for dense search filtered in
 * the same query (iterative index scans, exact fallback), and keyword search
 * over a GIN-indexed tsvector ranked with BM25. Every multi-record write is one
 * transaction; connection failures outside transactions are retried.
 */
export class PostgresBackend implements MemoryBackend {
  readonly specificationVersion = 'v1' as const;
  readonly provider = 'postgres';
  readonly capabilities: BackendCapabilities = {
    nativeHybrid: false,
    textSearch: true,
    transactions: true,
    persistent: true,
    snapshot: false,
    readonly: false,
    links: true,
  };
  readonly names: TableNames;
  /** `host:port/database` (no password), for messages. */
  readonly target: string;
  readonly keywordRanking: KeywordRanking;

  private readonly pool: pg.Pool;
  private readonly ownsPool: boolean;
  private readonly retry: RetryPolicy;
  private readonly hnsw: { m: number; efConstruction: number; efSearch: number };
  private readonly queryTimeoutMs: number | undefined;
  private readonly frames = new AsyncLocalStorage<Frame>();
  private ready: Promise<void> | undefined;
  private dimension: number | undefined;
  /** pgvector >= 0.8: HNSW scans can go on until enough rows pass the filter. */
  private iterativeScans = false;
  private closed = false;

  constructor(options: PostgresBackendOptions) {
    if (!options || typeof options !== 'object' || (!options.connectionString && !options.pool)) {
      throw invalidInput(
        "PostgresBackend needs { connectionString: 'postgres://user:password@host:5432/db' } or { pool } (a pg Pool).",
      );
    }
    const located = locationParams(options.connectionString);
    this.names = tableNames(options.schema ?? located.schema, options.table ?? located.table);
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
    this.hnsw = {
      m: positiveInt(options.hnsw?.m ?? 16, 'hnsw.m'),
      efConstruction: positiveInt(options.hnsw?.efConstruction ?? 64, 'hnsw.efConstruction'),
      efSearch: positiveInt(options.hnsw?.efSearch ?? DEFAULT_EF_SEARCH, 'hnsw.efSearch'),
    };
    this.keywordRanking = options.keywordRanking ?? 'bm25';
    if (this.keywordRanking !== 'bm25' && this.keywordRanking !== 'ts_rank_cd') {
      throw invalidInput(`Unknown keywordRanking ${JSON.stringify(options.keywordRanking)}: use bm25 or ts_rank_cd.`);
    }
    const timeout = options.statementTimeoutMs ?? 30_000;
    if (!Number.isFinite(timeout) || timeout < 0) throw invalidInput('statementTimeoutMs must be 0 (off) or more.');
    if (options.pool) {
      this.pool = options.pool;
      this.ownsPool = false;
      this.queryTimeoutMs = timeout > 0 && options.statementTimeoutMs !== undefined ? timeout : undefined;
    } else {
      this.pool = new pg.Pool({
        connectionString: located.connectionString,
        max: options.maxConnections ?? 10,
        connectionTimeoutMillis: 10_000,
        ...(timeout > 0 ? { statement_timeout: timeout } : {}),
      });
      this.ownsPool = true;
      this.queryTimeoutMs = timeout > 0 ? timeout + 2000 : undefined;
    }
    // An idle connection that breaks (server restart) must not crash the process; the next query reconnects.
    this.pool.on('error', () => {});
    this.target = describeTarget(options.connectionString, this.pool);
  }

  /** The pool queries run on (yours, or the one the backend created). */
  get connectionPool(): pg.Pool {
    return this.pool;
  }

  /** Dimension of the vector column, once `init` set it (or the table had one). */
  get vectorDimension(): number | undefined {
    return this.dimension;
  }

  async init(options: BackendInitOptions): Promise<void> {
    const dimension = options?.dimension;
    if (!Number.isInteger(dimension) || dimension < 1) {
      throw invalidInput(`init() needs a positive integer dimension, got ${JSON.stringify(dimension)}.`);
    }
    await this.setup();
    if (this.dimension === undefined) {
      this.dimension = await this.run(async (q) => {
        const existing = await readDimension(q, this.names);
        if (existing !== undefined) return existing;
        return this.atomicOn(q, async () => {
          await q('SELECT pg_advisory_xact_lock(hashtext($1))', [this.names.lockKey]);
          const current = await readDimension(q, this.names); // another process may have set it meanwhile
          if (current !== undefined) return current;
          await q(`ALTER TABLE ${this.names.records} ALTER COLUMN embedding TYPE vector(${dimension})`);
          if (dimension <= HNSW_MAX_DIMENSION) {
            await q(
              `CREATE INDEX IF NOT EXISTS "${this.names.table}_embedding_idx" ON ${this.names.records} USING hnsw (embedding vector_cosine_ops) WITH (m = ${this.hnsw.m}, ef_construction = ${this.hnsw.efConstruction})`,
            );
          }
          return dimension;
        });
      });
    }
    if (this.dimension !== dimension) {
      throw new AgentMemoryError(
        'DIMENSION_MISMATCH',
        `${this.names.label} on ${this.target} holds ${this.dimension}-dimensional vectors; it cannot take ${dimension}. Use an embedder of dimension ${this.dimension}, or another table and re-embed (snapshot + merge with reembed).`,
        { details: { table: this.names.label, expected: this.dimension, actual: dimension } },
      );
    }
  }

  async upsert(records: readonly BackendRecord[]): Promise<void> {
    if (!Array.isArray(records)) throw invalidInput('upsert() takes an array of records.');
    await this.setup();
    if (this.dimension === undefined && records.some((r) => r?.vector !== undefined)) {
      this.dimension = await this.run((q) => readDimension(q, this.names));
    }
    // Every record is checked before anything is written; the last of several with one id wins.
    // In id order: concurrent writes of overlapping records then lock their rows in one order, never in
    // opposite orders (a deadlock, which inside a caller's transaction cannot be retried).
    const rows = [...new Map(records.map((r) => [r?.id, this.encodeRecord(r)])).values()].sort(byId);
    if (rows.length === 0) return;
    const sql = `INSERT INTO ${this.names.records} AS r (id, tenant, namespace, text, context, terms, term_count, context_term_count, occurred_at, embedding, attributes, payload)
      SELECT u.id, u.tenant, u.namespace, u.text, u.context, u.terms::tsvector, u.term_count, u.context_term_count,
        u.occurred_at::timestamptz, u.embedding::vector, u.attributes::jsonb, u.payload::json
      FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::int[], $8::int[], $9::text[], $10::text[], $11::text[], $12::text[])
        AS u(id, tenant, namespace, text, context, terms, term_count, context_term_count, occurred_at, embedding, attributes, payload)
      ON CONFLICT (id) DO UPDATE SET tenant = excluded.tenant, namespace = excluded.namespace, text = excluded.text,
        context = excluded.context, terms = excluded.terms, term_count = excluded.term_count,
        context_term_count = excluded.context_term_count, occurred_at = excluded.occurred_at, embedding = excluded.embedding,
        attributes = excluded.attributes, payload = excluded.payload`;
    await this.atomic(async (q) => {
      for (let i = 0; i < rows.length; i += WRITE_BATCH) {
        const batch = rows.slice(i, i + WRITE_BATCH);
        await q(sql, [
          batch.map((r) => r.id),
          batch.map((r) => r.tenant),
          batch.map((r) => r.namespace),
          batch.map((r) => r.text),
          batch.map((r) => r.context),
          batch.map((r) => r.terms),
          batch.map((r) => r.termCount),
          batch.map((r) => r.contextTermCount),
          batch.map((r) => r.occurredAt),
          batch.map((r) => r.embedding),
          batch.map((r) => r.attributes),
          batch.map((r) => r.payload),
        ]);
        await writeLinks(q, this.names, batch);
      }
    });
  }

  /** Merges attributes key by key (jsonb `||`) and replaces the payload when given; text, terms and vector stay. */
  async patch(patches: readonly RecordPatch[]): Promise<number> {
    if (!Array.isArray(patches)) throw invalidInput('patch() takes an array of { id, attributes?, payload? }.');
    // Several patches of one id apply in order, as if run one after the other.
    const merged = new Map<string, { attributes: Record<string, unknown>; payload: JsonObject | undefined }>();
    for (const p of patches) {
      if (!p || typeof p.id !== 'string') throw invalidInput('Every patch needs a string id.');
      const entry = merged.get(p.id) ?? { attributes: {}, payload: undefined };
      for (const [k, v] of Object.entries(p.attributes ?? {})) {
        if (v === undefined) continue;
        checkAttributeValue(k, v);
        if (k === 'occurredAt') occurredAtColumn(p.id, v);
        entry.attributes[k] = v;
      }
      if (p.payload !== undefined) entry.payload = checkPayload(p.payload);
      merged.set(p.id, entry);
    }
    if (merged.size === 0) return 0;
    await this.setup();
    const entries = [...merged].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)); // lock order, as in upsert
    // occurred_at follows the occurredAt attribute when a patch sets it.
    const sql = `UPDATE ${this.names.records} AS r SET attributes = r.attributes || u.attributes::jsonb, payload = coalesce(u.payload::json, r.payload),
        occurred_at = CASE WHEN u.attributes::jsonb ? 'occurredAt' THEN u.occurred_at::timestamptz ELSE r.occurred_at END
      FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS u(id, attributes, payload, occurred_at) WHERE r.id = u.id`;
    return this.atomic(async (q) => {
      let changed = 0;
      for (let i = 0; i < entries.length; i += WRITE_BATCH) {
        const batch = entries.slice(i, i + WRITE_BATCH);
        const result = await q(sql, [
          batch.map(([id]) => id),
          batch.map(([, e]) => JSON.stringify(e.attributes)),
          batch.map(([, e]) => (e.payload === undefined ? null : JSON.stringify(e.payload))),
          batch.map(([id, e]) => occurredAtColumn(id, e.attributes.occurredAt)),
        ]);
        changed += result.rowCount ?? 0;
      }
      return changed;
    }, entries.length > WRITE_BATCH);
  }

  async get(
    ids: readonly string[],
    options: { tenant?: string | null; withVectors?: boolean } = {},
  ): Promise<BackendRecord[]> {
    checkIds(ids, 'get');
    if (ids.length === 0) return [];
    await this.setup();
    const withVectors = options.withVectors ?? true;
    const b = new SqlBuilder();
    let sql = `SELECT ${COLUMNS}${withVectors ? ', r.embedding::text AS embedding' : ''} FROM ${this.names.records} r WHERE r.id = ANY(${b.param([...new Set(ids)])}::text[])`;
    if (typeof options.tenant === 'string') sql += ` AND r.tenant = ${b.param(options.tenant)}`;
    return this.run(async (q) => withLinks(q, this.names, ((await q(sql, b.params)).rows as RecordRow[]).map(decode)));
  }

  async delete(ids: readonly string[]): Promise<number> {
    checkIds(ids, 'delete');
    if (ids.length === 0) return 0;
    await this.setup();
    const result = await this.run((q) =>
      // Rows locked in id order first, as upsert and patch lock them: a plain DELETE locks in scan order,
      // and against an upsert of the same rows in id order that deadlocks.
      q(
        `DELETE FROM ${this.names.records} WHERE id IN (SELECT id FROM ${this.names.records} WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE)`,
        [[...new Set(ids)]],
      ),
    );
    return result.rowCount ?? 0;
  }

  async scan(options: ScanOptions): Promise<ScanPage> {
    if (!options || typeof options !== 'object')
      throw invalidInput('scan() takes { filter, cursor?, limit?, withVectors? }.');
    if (options.cursor !== undefined && typeof options.cursor !== 'string')
      throw invalidInput('scan() cursor must be the string of the previous page.');
    const limit = Math.min(MAX_PAGE, Math.max(1, Math.floor(options.limit ?? DEFAULT_PAGE)));
    const b = new SqlBuilder();
    const where = compileFilter(options.filter, b);
    if (!where.satisfiable) return { records: [] };
    await this.setup();
    const after = options.cursor === undefined ? '' : ` AND r.id > ${b.param(options.cursor)}`;
    const vector = options.withVectors ? ', r.embedding::text AS embedding' : '';
    const sql = `SELECT ${COLUMNS}${vector} FROM ${this.names.records} r WHERE ${where.sql}${after} ORDER BY r.id LIMIT ${b.param(limit + 1)}`;
    const { records, more } = await this.run(async (q) => {
      const rows = (await q(sql, b.params)).rows as RecordRow[];
      const more = rows.length > limit;
      return { records: await withLinks(q, this.names, (more ? rows.slice(0, limit) : rows).map(decode)), more };
    });
    return more ? { records, cursor: records[records.length - 1]!.id } : { records };
  }

  async search(request: SearchRequest): Promise<SearchHit[]> {
    const k = searchRequestK(request, 'PostgresBackend');
    if (request.mode === 'dense') {
      if (!(request.vector instanceof Float32Array))
        throw invalidInput('A dense search needs `vector` (a Float32Array).');
      compileFilter(request.filter, new SqlBuilder()); // validates before any round trip
      await this.setup();
      this.dimension ??= await this.run((q) => readDimension(q, this.names));
      if (this.dimension === undefined) throw invalidInput('Call init({ dimension }) before searching vectors.');
      this.checkDimension(request.vector);
      if (k === 0) return [];
      return this.denseSearch(request.vector, request.filter, k);
    }
    if (request.mode !== 'keyword')
      throw invalidInput(`Unknown search mode ${JSON.stringify(request.mode)}: use dense or keyword.`);
    if (typeof request.text !== 'string') throw invalidInput('A keyword search needs `text`.');
    const statement = keywordStatement(this.names.records, request.text, request.filter, k, this.keywordRanking);
    if (k === 0 || statement === undefined) return [];
    await this.setup();
    const rows = (await this.run((q) => q(statement.text, statement.values))).rows as (RecordRow & { score: number })[];
    return rows.map((row) => ({ record: decode(row), score: Number(row.score) }));
  }

  async linked(query: LinkQuery): Promise<LinkedKey[]> {
    await this.setup();
    return this.run((q) => linked(q, this.names, query));
  }

  async linkKeys(options: LinkKeysOptions): Promise<LinkKeysPage> {
    await this.setup();
    return this.run((q) => linkKeys(q, this.names, options));
  }

  async count(filter: RecordFilter): Promise<number> {
    const b = new SqlBuilder();
    const where = compileFilter(filter, b);
    if (!where.satisfiable) return 0;
    await this.setup();
    const result = await this.run((q) =>
      q(`SELECT count(*) AS n FROM ${this.names.records} r WHERE ${where.sql}`, b.params),
    );
    return Number(result.rows[0].n);
  }

  async namespaces(options: { tenant?: string | null } = {}): Promise<NamespaceCount[]> {
    await this.setup();
    const tenant = typeof options.tenant === 'string' ? options.tenant : null;
    const sql =
      `SELECT namespace, tenant, count(*) AS count FROM ${this.names.records}` +
      (tenant === null ? '' : ' WHERE tenant = $1') +
      ' GROUP BY tenant, namespace ORDER BY tenant, namespace';
    const result = await this.run((q) => q(sql, tenant === null ? [] : [tenant]));
    return result.rows.map((r) => ({ namespace: r.namespace, tenant: r.tenant, count: Number(r.count) }));
  }

  async getMeta(key: string): Promise<string | undefined> {
    if (typeof key !== 'string') throw invalidInput('Meta keys are strings.');
    await this.setup();
    const result = await this.run((q) => q(`SELECT value FROM ${this.names.meta} WHERE key = $1`, [key]));
    return result.rows[0]?.value;
  }

  async setMeta(key: string, value: string): Promise<void> {
    if (typeof key !== 'string' || typeof value !== 'string') throw invalidInput('Meta keys and values are strings.');
    await this.setup();
    await this.run((q) =>
      q(
        `INSERT INTO ${this.names.meta} (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
        [key, value],
      ),
    );
  }

  /**
   * All or nothing, in one Postgres transaction on one connection: every call
   * of this backend inside `fn` joins it (nested calls become savepoints).
   * Calls from outside `fn` run on other connections and see it only once
   * committed. A connection lost inside `fn` fails it; the server rolls back.
   */
  async transaction<T>(fn: () => Promise<T>): Promise<T> {
    if (typeof fn !== 'function') throw invalidInput('transaction() takes an async function.');
    this.assertOpen();
    await this.setup();
    const parent = this.frame();
    if (parent) {
      const name = `agentmem_tx_${++parent.savepoints}`;
      const q = this.queryOn(parent.client);
      await this.mapped(() => q(`SAVEPOINT ${name}`), true);
      try {
        const result = await fn();
        await this.mapped(() => q(`RELEASE SAVEPOINT ${name}`), true);
        return result;
      } catch (error) {
        await q(`ROLLBACK TO SAVEPOINT ${name}`).catch(() => {});
        throw error;
      }
    }
    const client = await this.connect();
    const frame: Frame = { owner: this, client, savepoints: 0, queue: Promise.resolve() };
    const q = this.queryOn(client);
    let broken: Error | undefined;
    try {
      await this.mapped(() => q('BEGIN'), true);
      const result = await this.frames.run(frame, fn);
      await this.mapped(() => q('COMMIT'), true, 'commit');
      return result;
    } catch (error) {
      const kind = classify((error as { cause?: unknown })?.cause ?? error);
      if (connectionBroken(kind)) broken = error as Error;
      else await q('ROLLBACK').catch((e: Error) => (broken = e));
      throw error;
    } finally {
      client.release(broken);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.ownsPool) await this.pool.end().catch(() => {});
  }

  // ------------------------------------------------------------------ internals

  /** Migrates once per instance (retried on the next call if it failed). */
  private setup(): Promise<void> {
    this.assertOpen();
    this.ready ??= this.run(async (_q, client) => {
      await migrate(client, this.names);
      const q = this.queryOn(client);
      this.dimension ??= await readDimension(q, this.names);
      const version = await q("SELECT extversion FROM pg_extension WHERE extname = 'vector'");
      this.iterativeScans = atLeast(version.rows[0]?.extversion, [0, 8]);
    }).catch((error) => {
      this.ready = undefined;
      throw error;
    });
    return this.ready;
  }

  private frame(): Frame | undefined {
    const frame = this.frames.getStore();
    return frame?.owner === this ? frame : undefined;
  }

  private queryOn(client: pg.PoolClient): Query {
    const timeout = this.queryTimeoutMs;
    return (text, values) =>
      client.query(
        timeout === undefined ? { text, values } : ({ text, values, query_timeout: timeout } as pg.QueryConfig),
      );
  }

  /** A pooled connection; failures to connect are retried (nothing was sent). */
  private async connect(): Promise<pg.PoolClient> {
    for (let attempt = 0; ; attempt++) {
      this.assertOpen();
      try {
        const client = await this.pool.connect();
        // A checked-out connection that breaks emits 'error'; the failing query reports it, so this must not crash.
        if (!guarded.has(client)) {
          guarded.add(client);
          client.on('error', () => {});
        }
        return client;
      } catch (error) {
        const kind = classify(error);
        if (kind === 'unreachable' && attempt < this.retry.retries) {
          await sleep(backoffMs(this.retry, attempt));
          continue;
        }
        throw toAgentMemoryError(error, kind, this.target, { inTransaction: false, attempts: attempt + 1 });
      }
    }
  }

  /**
   * Runs `fn` on the transaction's connection when inside `transaction()`,
   * else on a pooled one, retrying connection failures and aborted
   * transactions: every operation of this backend is idempotent (writing the
   * same records, patches or deletes again ends in the same state).
   */
  private async run<T>(fn: (q: Query, client: pg.PoolClient) => Promise<T>): Promise<T> {
    this.assertOpen();
    const frame = this.frame();
    if (frame) return this.inFrame(frame, (q) => fn(q, frame.client));
    for (let attempt = 0; ; attempt++) {
      const client = await this.connect();
      try {
        const result = await fn(this.queryOn(client), client);
        client.release();
        return result;
      } catch (error) {
        const kind = classify(error);
        client.release(connectionBroken(kind) ? (error as Error) : undefined);
        const retryable = kind === 'unreachable' || kind === 'dropped' || kind === 'transient';
        if (retryable && attempt < this.retry.retries && !this.closed) {
          await sleep(backoffMs(this.retry, attempt));
          continue;
        }
        throw toAgentMemoryError(error, kind, this.target, { inTransaction: false, attempts: attempt + 1 });
      }
    }
  }

  private async mapped<T>(fn: () => Promise<T>, inTransaction: boolean, stage?: 'commit'): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      const kind = classify(error);
      if (stage === 'commit' && kind === 'dropped') {
        throw new AgentMemoryError(
          'BACKEND_UNAVAILABLE',
          `The connection to PostgreSQL at ${this.target} was lost while committing (${(error as Error).message}); the transaction may or may not have been applied. Check before retrying.`,
          { cause: error },
        );
      }
      throw toAgentMemoryError(error, kind, this.target, { inTransaction, attempts: 1 });
    }
  }

  /**
   * Several statements as one unit: a transaction of their own (retried as a
   * whole), or a savepoint inside the caller's transaction. Single statements
   * (`multi` false) are atomic by themselves.
   */
  private atomic<T>(fn: (q: Query) => Promise<T>, multi = true): Promise<T> {
    const frame = this.frame();
    if (frame) return this.inFrame(frame, (q) => this.atomicOn(q, () => fn(q), multi));
    return this.run((q) => this.atomicOn(q, () => fn(q), multi));
  }

  /**
   * One operation on the transaction's connection, after the ones before it:
   * concurrent calls inside `transaction(fn)` must not interleave with another
   * operation's savepoint (a rollback to it would undo their writes too).
   */
  private inFrame<T>(frame: Frame, fn: (q: Query) => Promise<T>): Promise<T> {
    const q = this.queryOn(frame.client);
    const next = frame.queue.then(() => this.mapped(() => fn(q), true));
    frame.queue = next.catch(() => {});
    return next;
  }

  private async atomicOn<T>(q: Query, fn: () => Promise<T>, multi = true): Promise<T> {
    if (!multi) return fn();
    const inside = this.frame() !== undefined;
    const [begin, commit, rollback] = inside
      ? ['SAVEPOINT agentmem_op', 'RELEASE SAVEPOINT agentmem_op', 'ROLLBACK TO SAVEPOINT agentmem_op']
      : ['BEGIN', 'COMMIT', 'ROLLBACK'];
    await q(begin);
    try {
      const result = await fn();
      await q(commit);
      return result;
    } catch (error) {
      if (!connectionBroken(classify(error))) await q(rollback).catch(() => {});
      throw error;
    }
  }

  /**
   * HNSW with an iterative index scan (pgvector >= 0.8): the scan goes on until
   * k rows pass the tenant/namespace/attribute filter, instead of filtering a
   * fixed ef_search candidate list. If it still comes back short (a very
   * selective filter hits hnsw.max_scan_tuples) while more rows match, the
   * query runs again without the index: exact, over the matching rows only.
   */
  private async denseSearch(vector: Float32Array, filter: RecordFilter, k: number): Promise<SearchHit[]> {
    // Each statement gets its own parameter list: Postgres refuses parameters a statement does not use.
    const statement = (usesVector: boolean, shape: (v: string, base: string, limit: string) => string) => {
      const b = new SqlBuilder();
      const where = compileFilter(filter, b);
      const v = usesVector ? b.param(vectorLiteral(vector)) : '';
      const base = `FROM ${this.names.records} r WHERE r.embedding IS NOT NULL AND ${where.sql}`;
      return { text: shape(v, base, b.param(k)), values: b.params, satisfiable: where.satisfiable };
    };
    const approximate = statement(
      true,
      (v, base, limit) =>
        `SELECT * FROM (SELECT ${COLUMNS}, r.embedding <=> ${v}::vector AS distance ${base} ORDER BY r.embedding <=> ${v}::vector LIMIT ${limit}) s ORDER BY distance, id`,
    );
    if (!approximate.satisfiable) return [];
    const matching = statement(
      false,
      (_v, base, limit) => `SELECT count(*) AS n FROM (SELECT 1 ${base} LIMIT ${limit}) c`,
    );
    const exact = statement(
      true,
      (v, base, limit) =>
        `WITH m AS MATERIALIZED (SELECT ${COLUMNS}, r.embedding <=> ${v}::vector AS distance ${base}) SELECT * FROM m ORDER BY distance, id LIMIT ${limit}`,
    );
    const efSearch = Math.min(1000, Math.max(this.hnsw.efSearch, k));
    // One round trip for both settings (simple protocol); they end with the transaction (or savepoint's transaction).
    const settings = [`SET LOCAL hnsw.ef_search = ${efSearch}`];
    if (this.iterativeScans) settings.push('SET LOCAL hnsw.iterative_scan = relaxed_order');
    const rows = await this.atomic(async (q) => {
      await q(settings.join('; '));
      const found = (await q(approximate.text, approximate.values)).rows as (RecordRow & { distance: number })[];
      if (found.length >= k) return found;
      const n = Number((await q(matching.text, matching.values)).rows[0].n);
      if (n <= found.length) return found;
      return (await q(exact.text, exact.values)).rows as (RecordRow & { distance: number })[];
    });
    return rows.map((row) => ({ record: decode(row), score: 1 - Number(row.distance) }));
  }

  private encodeRecord(r: BackendRecord) {
    if (!r || typeof r !== 'object') throw invalidInput('Every record must be an object.');
    if (typeof r.id !== 'string' || r.id.length === 0) throw invalidInput('Every record needs a non-empty string id.');
    for (const field of ['namespace', 'tenant', 'text'] as const) {
      if (typeof r[field] !== 'string') throw invalidInput(`Record ${r.id}: ${field} must be a string.`, { id: r.id });
    }
    if (r.attributes === null || typeof r.attributes !== 'object' || Array.isArray(r.attributes))
      throw invalidInput(`Record ${r.id}: attributes must be an object.`);
    for (const [k, v] of Object.entries(r.attributes)) checkAttributeValue(k, v);
    let embedding: string | null = null;
    if (r.vector !== undefined) {
      if (!(r.vector instanceof Float32Array)) throw invalidInput(`Record ${r.id}: vector must be a Float32Array.`);
      if (this.dimension === undefined) throw invalidInput('Call init({ dimension }) before writing vectors.');
      this.checkDimension(r.vector);
      if (!r.vector.every(Number.isFinite)) throw invalidInput(`Record ${r.id}: vector values must be finite numbers.`);
      embedding = vectorLiteral(r.vector);
    }
    if (r.context !== undefined && typeof r.context !== 'string')
      throw invalidInput(`Record ${r.id}: context must be a string when given.`, { id: r.id });
    const context = r.context ?? '';
    const terms = termsVector(r.text, context);
    return {
      id: r.id,
      tenant: r.tenant,
      namespace: r.namespace,
      text: r.text,
      context,
      terms: terms.literal,
      termCount: terms.count,
      contextTermCount: terms.contextCount,
      occurredAt: occurredAtColumn(r.id, r.attributes.occurredAt),
      embedding,
      attributes: JSON.stringify(r.attributes),
      payload: JSON.stringify(checkPayload(r.payload)),
      links: encodeLinks(r.id, r.links),
    };
  }

  private checkDimension(v: Float32Array): void {
    if (v.length !== this.dimension) {
      throw new AgentMemoryError(
        'DIMENSION_MISMATCH',
        `Vector has ${v.length} dimensions but ${this.names.label} holds ${this.dimension}. Use the embedder the store was built with, or re-embed into a new table.`,
        { details: { table: this.names.label, expected: this.dimension, actual: v.length } },
      );
    }
  }

  private assertOpen(): void {
    if (this.closed)
      throw new AgentMemoryError('CLOSED', `The PostgresBackend on ${this.names.label} is closed; open a new one.`);
  }
}

const guarded = new WeakSet<pg.PoolClient>();

function byId(a: { id: string }, b: { id: string }): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** The declared dimension of the embedding column (its typmod), or undefined while it has none. */
async function readDimension(q: Query, n: TableNames): Promise<number | undefined> {
  const result = await q(
    `SELECT atttypmod FROM pg_attribute WHERE attrelid = to_regclass($1) AND attname = 'embedding' AND NOT attisdropped`,
    [n.records],
  );
  const typmod = result.rows[0]?.atttypmod;
  return typeof typmod === 'number' && typmod > 0 ? typmod : undefined;
}

function checkIds(ids: unknown, op: string): asserts ids is readonly string[] {
  if (!Array.isArray(ids) || ids.some((id) => typeof id !== 'string'))
    throw invalidInput(`${op}() takes an array of string ids.`);
}

function positiveInt(value: number, name: string): number {
  if (!Number.isInteger(value) || value < 1) throw invalidInput(`${name} must be a positive integer.`);
  return value;
}

/** Whether a version such as `0.8.1` is at least `min`. */
function atLeast(version: unknown, min: readonly number[]): boolean {
  if (typeof version !== 'string') return false;
  const parts = version.split('.').map(Number);
  for (let i = 0; i < min.length; i++) {
    const v = parts[i] ?? 0;
    if (v !== min[i]) return v > min[i]!;
  }
  return true;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
