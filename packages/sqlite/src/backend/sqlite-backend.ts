import { resolve } from 'node:path';
import {
  AgentMemoryError,
  approximateCandidates,
  type AttributePage,
  type AttributeScanOptions,
  type AttributeValue,
  type BackendCapabilities,
  cosineSimilarity,
  type BackendInitOptions,
  type BackendRecord,
  checkAttributeValue,
  invalidInput,
  type JsonObject,
  type LinkedKey,
  type LinkKeysOptions,
  type LinkKeysPage,
  type LinkQuery,
  type LoggedPatches,
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
import type Database from 'better-sqlite3';
import { compileFilter, namespaceList, SqlBuilder } from '../query';
import {
  ATTRIBUTE_COLUMNS,
  CODES_TABLE,
  createVectorTableSql,
  isAgentmemDatabase,
  isInMemoryPath,
  isSqliteError,
  openDatabase,
  VECTOR_TABLE,
} from '../schema';
import { SqliteDenseIndex, type WrittenVector } from './dense-index';
import { SqliteEntityLinks } from './entity-links';
import { encodeAttributes } from './jsonb';
import { SqliteKeywordIndex } from './keyword-index';
import { chunks, multiRowInsert } from './multi-row';
import { acquireGate, releaseGate, type TransactionGate } from './transaction-gate';

export interface SqliteBackendOptions {
  /** Database file (created with its parent directory when missing), or `':memory:'`. */
  path: string;
  /** How long a write waits for another process's write lock before failing. Default 5000 ms. */
  busyTimeoutMs?: number;
  /** Open without writing anything (no migrations, writes refused). Default false. */
  readonly?: boolean;
  /**
   * `approximate` (default): dense search picks candidates by the Hamming
   * distance of sign-bit codes in an in-process index and ranks them by exact
   * cosine (recall@10 >= 0.98 of exact on the bench corpus, docs/benchmarks.md);
   * sparse (lexical) vectors are always searched exactly. `exact`: every
   * vector of the scope is compared (sqlite-vec).
   */
  denseSearch?: 'approximate' | 'exact';
  /**
   * Bytes of the file read through mmap. Default 64 MiB: every mapped page
   * a process touched counts in its resident memory; exact dense search over
   * large stores reads faster with more (docs/sqlite.md).
   */
  mmapBytes?: number;
}

const DEFAULT_PAGE = 500;
const MAX_PAGE = 10_000;
/** Rows read beyond k (at least; k / 4 for larger k) from the head of the int8 ranking for exact rescoring. */
const RESCORE_MARGIN = 8;

/** sqlite-vec's largest k; beyond it filtered dense search scans the matching records exactly. */
const MAX_KNN = 4096;
const STATEMENT_CACHE = 200;

const INDEXED = Object.entries(ATTRIBUTE_COLUMNS);
const INDEXED_KEYS = INDEXED.map(([key]) => key);
const INDEXED_NAMES = INDEXED.map(([, column]) => `, ${column}`).join('');
const INDEXED_SLOTS = ', ?'.repeat(INDEXED.length);
const INDEXED_SETS = INDEXED.map(([, column]) => `, ${column} = ?`).join('');
/** Values per row of an insert into records: seven columns and the indexed attribute copies. */
const ROW_VALUES = 7 + INDEXED.length;
/** Records encoded at a time by upsert (see flush). */
const ENCODE_SLICE = 512;
/**
 * Rows per vec0 insert: a write to a virtual table keeps a statement journal, which copies every
 * page of the file the statement changes that existed when it began, such as the rest of a vector
 * chunk an earlier statement allocated. A whole slice per statement (2,048 parameters) cut those
 * copies by a third: 34.5k to 23.4k pages for 50k memories (docs/benchmarks.md, issue 16).
 */
const VECTOR_CHUNK_SIZES = [ENCODE_SLICE, 128, 32, 8, 1];
const INSERT_RECORDS = multiRowInsert(
  `INSERT OR FAIL INTO records (id, namespace, tenant, text, context, attributes, payload${INDEXED_NAMES})`,
  `(?, ?, ?, ?, ?, ?, ?${INDEXED_SLOTS})`,
);
const INSERT_CHANGES = multiRowInsert('INSERT INTO logged_changes (log_rowid, batch, log_id, payload)', '(?, ?, ?, ?)');
const INSERT_VECTORS = multiRowInsert(
  `INSERT INTO ${VECTOR_TABLE} (rowid, tenant, namespace, embedding)`,
  '(?, ?, ?, ?)',
);

/**
 * What reads select from (schema step 8): `records` while no logged change is pending, else the views
 * that merge pending changes into their records (`records_now`) and also show their log records
 * (`records_all`).
 */
type ReadSource = 'records' | 'records_now' | 'records_all';

/** Columns of `records` a fold copies a pending log record into (the views have the same names). */
const LOG_COLUMNS = `id, namespace, tenant, text, context, attributes, payload${INDEXED_NAMES}`;

const COLUMNS =
  'r.rowid AS rowid, r.id AS id, r.namespace AS namespace, r.tenant AS tenant, r.text AS text, r.context AS context, json(r.attributes) AS attributes, r.payload AS payload';

interface RecordRow {
  rowid: number;
  id: string;
  namespace: string;
  tenant: string;
  text: string;
  context: string;
  attributes: string;
  payload: string;
}

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
  private readonly denseMode: 'approximate' | 'exact';
  private codes: SqliteDenseIndex | undefined;
  /** The in-process keyword index (BM25F), kept in step with this connection's writes. */
  private readonly keywords: SqliteKeywordIndex;
  /** Memory <-> entity links, in tables of their own (entity-links.ts). */
  private readonly links: SqliteEntityLinks;
  /** Whether any logged change is pending (see `source`): one index probe. */
  private readonly pendingChanges: Database.Statement;
  /** Write calls so far: a change of it tells `scanMemo` that rows may have changed since. */
  private writes = 0;
  /**
   * What the last `scanAttributes` inside a transaction of this backend returned (the transaction
   * holds the file's write lock): while no write has happened since, in the same transaction, those
   * are the stored values, and `patchLogged` compares its expected values with them instead of
   * reading the rows again.
   */
  private scanMemo: ScanMemo | undefined;

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
      busyTimeoutMs: options.busyTimeoutMs,
      mmapBytes: options.mmapBytes,
    });
    this.gateKey = memory ? undefined : this.path;
    this.gate = acquireGate(this.gateKey);
    this.pendingChanges = this.db.prepare('SELECT EXISTS (SELECT 1 FROM logged_changes)').pluck();
    this.keywords = new SqliteKeywordIndex(this.db, () => this.source(false), !this.readonly && !memory);
    this.links = new SqliteEntityLinks(this.db);
    this.dimension = this.readDimension();
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
      if (current === undefined) this.db.exec(createVectorTableSql(dimension));
      this.dimension = current ?? dimension;
    });
    if (this.dimension !== dimension) return this.init(options);
  }

  async upsert(records: readonly BackendRecord[]): Promise<void> {
    if (!Array.isArray(records)) throw invalidInput('upsert() takes an array of records.');
    for (const r of records) this.checkRecord(r); // all checked before anything is written
    if (records.length === 0) return;
    await this.write(() => {
      this.foldChanges(records.map((r) => r.id));
      // New rows go in with multi-row statements: every statement journals the pages it first changes,
      // so one statement per row cost ~4x the CPU of the rows themselves.
      const existing = new Map(
        (
          this.stmt('SELECT id, rowid FROM records WHERE id IN (SELECT value FROM json_each(?))').all(
            JSON.stringify(records.map((r) => r.id)),
          ) as { id: string; rowid: number }[]
        ).map((r) => [r.id, r.rowid]),
      );
      let fresh: BackendRecord[] = [];
      const freshIds = new Set<string>();
      const flush = () => {
        // Encoded a slice at a time: a whole batch's encoded rows (JSON, JSONB, codes: ~3 KB a memory with
        // its history row) outlived many young-generation collections, each copying them again.
        for (let start = 0; start < fresh.length; start += ENCODE_SLICE) {
          const slice = fresh.slice(start, start + ENCODE_SLICE).map((r) => this.encodeRecord(r));
          const rowids = this.insertRows(slice);
          this.writeVectors(slice, rowids);
          for (let i = 0; i < slice.length; i++) existing.set(slice[i]!.id, rowids[i]!);
        }
        fresh = [];
        freshIds.clear();
      };
      for (const record of records) {
        if (!existing.has(record.id) && !freshIds.has(record.id)) {
          fresh.push(record);
          freshIds.add(record.id);
          continue;
        }
        // An id written before (or earlier in this batch): update in place, in the order given.
        flush();
        const row = this.encodeRecord(record);
        const rowid = existing.get(row.id)!;
        this.stmt(
          `UPDATE records SET namespace = ?, tenant = ?, text = ?, context = ?, attributes = ?, payload = ?${INDEXED_SETS} WHERE rowid = ?`,
        ).run(row.namespace, row.tenant, row.text, row.context, row.attributes, row.payload, ...row.indexed, rowid);
        if (this.hasVectorTable()) {
          this.stmt(`DELETE FROM ${VECTOR_TABLE} WHERE rowid = ?`).run(BigInt(rowid));
          if (!row.vector) this.denseIndex()?.deleted(rowid);
        }
        this.writeVectors([row], [rowid]);
      }
      flush();
      this.keywords.written(records);
      this.links.written(records);
    });
  }

  /**
   * Inserts rows whose ids are not in the file, in chunks of multi-row
   * statements (no trigger, so they keep no statement journal; the caller's
   * savepoint makes the whole batch atomic). Their rowids, in order.
   */
  private insertRows(rows: readonly EncodedRow[]): number[] {
    const ordered: number[] = new Array(rows.length);
    for (const [offset, size] of chunks(rows.length)) {
      const args: unknown[] = new Array(size * ROW_VALUES);
      let at = 0;
      for (let i = offset; i < offset + size; i++) {
        const r = rows[i]!;
        args[at++] = r.id;
        args[at++] = r.namespace;
        args[at++] = r.tenant;
        args[at++] = r.text;
        args[at++] = r.context;
        args[at++] = r.attributes;
        args[at++] = r.payload;
        for (const value of r.indexed) args[at++] = value;
      }
      // No RETURNING (it buffered every row and built an object per row): a multi-row insert gives its rows
      // consecutive rowids, one above the largest, in VALUES order; checked on the chunk's first row.
      const last = Number(this.stmt(INSERT_RECORDS(size)).run(args).lastInsertRowid);
      const first = last - size + 1;
      if (this.stmt('SELECT id FROM records WHERE rowid = ?').pluck().get(first) !== rows[offset]!.id)
        throw new AgentMemoryError('BACKEND_ERROR', `${this.path}: inserted rows did not get consecutive rowids.`);
      for (let i = 0; i < size; i++) ordered[offset + i] = first + i;
    }
    return ordered;
  }

  /** The vec0 rows and codes of the rows (rowids[i] is rows[i]'s) with a vector, in multi-row statements. */
  private writeVectors(rows: readonly EncodedRow[], rowids: readonly number[]): void {
    let withVector = rows as readonly VectorRow[];
    let vectorRowids = rowids;
    if (!rows.every((r) => r.vector)) {
      withVector = rows.filter((r): r is VectorRow => r.vector !== undefined);
      vectorRowids = rowids.filter((_, i) => rows[i]!.vector);
    }
    if (withVector.length === 0) return;
    for (const [offset, size] of chunks(withVector.length, VECTOR_CHUNK_SIZES)) {
      const args: unknown[] = new Array(size * 4);
      for (let i = 0; i < size; i++) {
        const row = withVector[offset + i]!;
        args[i * 4] = BigInt(vectorRowids[offset + i]!);
        args[i * 4 + 1] = row.tenant;
        args[i * 4 + 2] = row.namespace;
        args[i * 4 + 3] = row.vector;
      }
      this.stmt(INSERT_VECTORS(size)).run(args);
    }
    this.denseIndex()?.writtenMany(vectorRowids, withVector);
  }

  /** Rewrites attributes (merged key by key) and payload only; the text and vector indexes are not touched. */
  async patch(patches: readonly RecordPatch[]): Promise<number> {
    if (!Array.isArray(patches)) throw invalidInput('patch() takes an array of { id, attributes?, payload? }.');
    const encoded = patches.map((p) => {
      if (!p || typeof p.id !== 'string') throw invalidInput('Every patch needs a string id.');
      const keys = p.attributes ? Object.keys(p.attributes).filter((k) => p.attributes![k] !== undefined) : [];
      for (const k of keys) checkAttribute(k, p.attributes![k]);
      const values = keys.map((k) => JSON.stringify(p.attributes![k]));
      // Only the indexed columns of keys the patch sets: the others' index entries stay untouched.
      const columns: string[] = [];
      const columnValues: unknown[] = [];
      for (const k of keys) {
        const column = Object.hasOwn(ATTRIBUTE_COLUMNS, k) ? ATTRIBUTE_COLUMNS[k] : undefined;
        if (column === undefined) continue;
        columns.push(column);
        columnValues.push(columnValue(p.attributes![k]));
      }
      const payload = p.payload === undefined ? null : encodePayload(p.payload);
      // Patches of one shape (same keys, payload or not) can share a statement.
      const shape = `${keys.join('\u0000')}\u0001${payload === null ? '' : 'p'}`;
      return { id: p.id, keys, values, columns, columnValues, payload, shape, attributes: p.attributes };
    });
    if (encoded.length === 0) return 0;
    return this.write(() => {
      this.foldChanges(encoded.map((p) => p.id));
      let changed = 0;
      // A run of patches of one shape: one UPDATE over json_each (a statement per record cost about as
      // much as the row rewrite itself).
      for (const run of shapeRuns(encoded)) {
        const first = run[0]!;
        const n = first.keys.length;
        if (run.length === 1) {
          const set = n === 0 ? 'attributes' : `jsonb_set(attributes${', ?, json(?)'.repeat(n)})`;
          const sql = `UPDATE records SET attributes = ${set}${first.columns.map((c) => `, ${c} = ?`).join('')}, payload = coalesce(?, payload) WHERE id = ?`;
          const args: unknown[] = [];
          for (let j = 0; j < n; j++) args.push(`$."${first.keys[j]}"`, first.values[j]);
          changed += this.stmt(sql).run(...args, ...first.columnValues, first.payload, first.id).changes;
        } else {
          // p.value = [id, attribute JSON texts..., column values..., payload]
          const set =
            n === 0
              ? 'attributes'
              : `jsonb_set(attributes${first.keys.map((_, j) => `, ?, json(p.value ->> ${j + 1})`).join('')})`;
          const columns = first.columns.map((c, j) => `, ${c} = p.value ->> ${n + 1 + j}`).join('');
          const payload = `p.value ->> ${n + 1 + first.columns.length}`;
          const sql = `UPDATE records SET attributes = ${set}${columns}, payload = coalesce(${payload}, payload) FROM json_each(?) AS p WHERE records.id = p.value ->> 0`;
          const rows = run.map((p) => [p.id, ...p.values, ...p.columnValues, p.payload]);
          changed += this.stmt(sql).run(...first.keys.map((k) => `$."${k}"`), JSON.stringify(rows)).changes;
        }
        for (const p of run) this.keywords.patched(p.id, p.attributes);
      }
      return changed;
    });
  }

  /**
   * Compare-and-set over json_each, a few statements per run of patches of one
   * shape, whatever their number. Patches that set plain values (status the
   * only attribute with a column) and whose log refers to the record by
   * `memoryId` (core's history) are kept as one narrow row each in
   * `logged_changes`, which reads merge in (schema step 8): a prune no longer
   * rewrites its record's row nor writes a copy of it. Others update the rows
   * with json_set and insert the log records, built in SQL from one encoded
   * template with the changed rows' new payloads copied in.
   */
  async patchLogged(batch: LoggedPatches): Promise<string[]> {
    const usage = 'patchLogged() takes { patches, attributes, log: { namespace, attributes, payload, keys } }.';
    if (!batch || typeof batch !== 'object' || !Array.isArray(batch.patches) || !isObject(batch.attributes))
      throw invalidInput(usage);
    const { log } = batch;
    if (!log || typeof log !== 'object' || !log.keys || typeof log.keys !== 'object') throw invalidInput(usage);
    const { id: idKey, ref, copy } = log.keys;
    for (const key of [idKey, ref, copy]) {
      if (typeof key !== 'string' || key === '' || key.includes('"'))
        throw invalidInput(`patchLogged() log.keys must be non-empty names without '"' (got ${JSON.stringify(key)}).`);
    }
    const keys = Object.keys(batch.attributes).filter((k) => batch.attributes[k] !== undefined);
    for (const k of keys) checkAttribute(k, batch.attributes[k]);
    // The log record as a template, checked and encoded once; its per-change fields are set in SQL.
    const logRecord: BackendRecord = {
      id: 'patchLogged log',
      namespace: log.namespace,
      tenant: '',
      text: '',
      attributes: isObject(log.attributes) ? { ...log.attributes, [ref]: '' } : log.attributes,
      payload: log.payload,
    };
    this.checkRecord(logRecord); // what upsert would refuse in a log record is refused here too
    const template = this.encodeRecord(logRecord);
    const ids = new Set<string>();
    // Patches of one shape share their key lists and shape text (a batch is usually one shape).
    let last: EncodedLoggedPatch | undefined;
    const encoded = batch.patches.map((p): EncodedLoggedPatch => {
      if (!p || typeof p.id !== 'string' || typeof p.logId !== 'string' || p.logId === '')
        throw invalidInput('Every logged patch needs a string id and logId.');
      if (ids.has(p.id)) throw invalidInput(`patchLogged() takes distinct ids (${p.id} is there twice).`);
      ids.add(p.id);
      if (!isObject(p.expect) || !isObject(p.payload))
        throw invalidInput(`Logged patch ${p.id}: expect and payload must be objects.`);
      let expect = Object.keys(p.expect);
      // [id, expected values...]: the compare-and-set statement's row
      const values: unknown[] = [p.id];
      for (const k of expect) {
        checkAttribute(k, p.expect[k]);
        values.push(columnValue(p.expect[k]));
      }
      let payload = Object.keys(p.payload);
      let defined = true;
      let deferrable = true;
      for (const k of payload) {
        const value = p.payload[k];
        if (value === undefined) defined = false;
        else if (value === null || isObject(value)) deferrable = false;
        if (k === '' || k.includes('"'))
          throw invalidInput(`Logged patch ${p.id}: payload keys cannot be empty or contain '"'.`);
      }
      if (!defined) payload = payload.filter((k) => p.payload[k] !== undefined);
      let shape: string;
      if (last && sameKeys(last.expect, expect) && sameKeys(last.payload, payload)) {
        ({ expect, payload, shape } = last);
      } else shape = `${expect.join('\u0000')}\u0001${payload.join('\u0000')}`;
      last = {
        id: p.id,
        expect,
        payload,
        values,
        logId: p.logId,
        payloadObject: p.payload,
        payloadJson: JSON.stringify(defined ? p.payload : Object.fromEntries(payload.map((k) => [k, p.payload[k]]))),
        deferrable,
        shape,
      };
      return last;
    });
    if (encoded.length === 0) return [];
    // A view merges these in with JSON merge patches: only values a merge patch sets as they are (no null,
    // which would delete the key, no object, which would be merged) and one column (status) qualify.
    const deferred =
      ref === 'memoryId' &&
      keys.every((k) => {
        const value = batch.attributes[k];
        if (value === null || isObject(value)) return false;
        return k === 'status' ? typeof value === 'string' : !Object.hasOwn(ATTRIBUTE_COLUMNS, k);
      }) &&
      encoded.every((p) => p.deferrable);
    if (deferred) {
      const memo = this.currentScanMemo();
      return this.write(() => this.deferLogged(batch, keys, template, encoded, memo));
    }
    const columns = keys.filter((k) => Object.hasOwn(ATTRIBUTE_COLUMNS, k));
    const set = keys.length === 0 ? 'attributes' : `jsonb_set(attributes${', ?, json(?)'.repeat(keys.length)})`;
    const setArgs = [
      ...keys.flatMap((k) => [`$."${k}"`, JSON.stringify(batch.attributes[k])]),
      ...columns.map((k) => columnValue(batch.attributes[k])),
    ];
    const setColumns = columns.map((k) => `, ${ATTRIBUTE_COLUMNS[k]} = ?`).join('');
    // Template columns; the one holding `ref` (when it has a column) gets the changed record's id.
    const logColumns = INDEXED.map(([key]) => (key === ref ? ', r.id' : ', ?')).join('');
    const logColumnArgs = INDEXED.flatMap(([key], j) => (key === ref ? [] : [template.indexed[j]]));
    const insert =
      `INSERT OR FAIL INTO records (id, namespace, tenant, text, context, attributes, payload${INDEXED_NAMES}) ` +
      `SELECT l.value ->> 1, ?, r.tenant, '', '', jsonb_set(?, ${jsonPath(ref)}, r.id), ` +
      `json_set(?, ${jsonPath(idKey)}, l.value ->> 1, ${jsonPath(ref)}, r.id, ${jsonPath(copy)}, json(r.payload))${logColumns} ` +
      `FROM json_each(?) AS l JOIN records r ON r.id = l.value ->> 0`;
    return this.write(() => {
      this.foldChanges(encoded.flatMap((p) => [p.id, p.logId])); // a log id in use is refused below, as before
      const changed: string[] = [];
      for (const run of shapeRuns(encoded)) {
        const first = run[0]!;
        let at = 1 + first.expect.length;
        const payload = first.payload.map((k) => `, ${jsonPath(k)}, json(p.value ->> ${at++})`).join('');
        const update =
          `UPDATE records SET attributes = ${set}${setColumns}, ` +
          `payload = ${payload ? `json_set(payload${payload})` : 'payload'} ` +
          `FROM json_each(?) AS p WHERE records.id = p.value ->> 0${expectedSql(first.expect, 'records')} RETURNING records.id`;
        // p.value = [id, expected values..., payload JSON texts...]
        const rows = run.map((p) => [...p.values, ...p.payload.map((k) => JSON.stringify(p.payloadObject[k]))]);
        const done = new Set(
          this.stmt(update)
            .pluck()
            .all(...setArgs, JSON.stringify(rows)) as string[],
        );
        if (done.size === 0) continue;
        const logged = run.filter((p) => done.has(p.id));
        this.stmt(insert).run(
          template.namespace,
          template.attributes,
          template.payload,
          ...logColumnArgs,
          JSON.stringify(logged.map((p) => [p.id, p.logId])),
        );
        for (const p of logged) {
          this.keywords.patched(p.id, batch.attributes);
          changed.push(p.id);
        }
      }
      return changed;
    });
  }

  /** patchLogged's changes as pending rows of `logged_changes` (one `logged_batches` row for the call). */
  private deferLogged(
    batch: LoggedPatches,
    keys: readonly string[],
    template: EncodedRow,
    encoded: readonly EncodedLoggedPatch[],
    memo: ScanMemo | undefined,
  ): string[] {
    // Rows just returned by scanAttributes under this transaction's write lock, unchanged since, and
    // without a pending change: compared in memory. Any other patch: folded, then compared in SQL.
    const known = memo && encoded.every((p) => memoMatches(memo, p));
    if (!known) this.foldChanges(encoded.map((p) => p.id)); // compared below with the rows as reads show them
    const changed: string[] = [];
    let batchRowid: number | undefined;
    for (const run of shapeRuns(encoded)) {
      const first = run[0]!;
      let matched: [number, number][];
      if (known) matched = run.map((p, i) => [memo.rows.get(p.id)!.rowid, i]);
      else {
        matched = this.stmt(
          `SELECT r.rowid, p.key FROM json_each(?) AS p JOIN records r ON r.id = p.value ->> 0 WHERE 1${expectedSql(first.expect, 'r')} ORDER BY p.key`,
        )
          .raw()
          .all(JSON.stringify(run.map((p) => p.values))) as [number, number][];
      }
      if (matched.length === 0) continue;
      const taken = this.stmt(
        'SELECT id FROM records WHERE id IN (SELECT value FROM json_each(@ids)) ' +
          'UNION ALL SELECT log_id FROM logged_changes WHERE log_id IN (SELECT value FROM json_each(@ids)) LIMIT 1',
      )
        .pluck()
        .get({ ids: JSON.stringify(matched.map(([, i]) => run[i]!.logId)) }) as string | undefined;
      if (taken !== undefined)
        throw invalidInput(
          `patchLogged(): log id ${taken} is already in use (a record's or a pending log record's); give each log record a new id.`,
        );
      if (batchRowid === undefined) {
        const column = (key: string) => template.indexed[INDEXED_KEYS.indexOf(key)];
        const status = batch.attributes.status;
        batchRowid = Number(
          this.stmt(
            'INSERT INTO logged_batches (attributes, sets_status, status, log_namespace, log_attributes, log_payload, ' +
              'id_path, copy_path, log_kind, log_status, log_type, log_content_hash, log_occurred_at) ' +
              'VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
          ).run(
            encodeAttributes(Object.fromEntries(keys.map((k) => [k, batch.attributes[k]!]))),
            status === undefined ? 0 : 1,
            status ?? null,
            template.namespace,
            template.attributes,
            template.payload,
            `$."${batch.log.keys.id}"`,
            `$."${batch.log.keys.copy}"`,
            column('kind'),
            column('status'),
            column('type'),
            column('contentHash'),
            column('occurredAt'),
          ).lastInsertRowid,
        );
      }
      for (const [offset, size] of chunks(matched.length, VECTOR_CHUNK_SIZES)) {
        const args: unknown[] = new Array(size * 4);
        for (let j = 0; j < size; j++) {
          const [rowid, i] = matched[offset + j]!;
          args[j * 4] = -rowid;
          args[j * 4 + 1] = batchRowid;
          args[j * 4 + 2] = run[i]!.logId;
          args[j * 4 + 3] = run[i]!.payloadJson;
        }
        this.stmt(INSERT_CHANGES(size)).run(args);
      }
      for (const [, i] of matched) {
        this.keywords.patched(run[i]!.id, batch.attributes);
        changed.push(run[i]!.id);
      }
    }
    return changed;
  }

  async get(
    ids: readonly string[],
    options: { tenant?: string | null; withVectors?: boolean } = {},
  ): Promise<BackendRecord[]> {
    if (!Array.isArray(ids) || ids.some((id) => typeof id !== 'string'))
      throw invalidInput('get() takes an array of string ids.');
    if (ids.length === 0) return [];
    const tenant = typeof options.tenant === 'string' ? options.tenant : null;
    return this.readSnapshot(() => {
      const sql = `SELECT ${COLUMNS} FROM ${this.source(true)} r WHERE r.id IN (SELECT value FROM json_each(?))${tenant === null ? '' : ' AND r.tenant = ?'}`;
      const args: unknown[] = [JSON.stringify([...new Set(ids)])];
      if (tenant !== null) args.push(tenant);
      const rows = this.stmt(sql).all(...args) as RecordRow[];
      return this.links.attach(rows.map((row) => this.decode(row, options.withVectors ?? true)));
    });
  }

  async delete(ids: readonly string[]): Promise<number> {
    if (!Array.isArray(ids) || ids.some((id) => typeof id !== 'string'))
      throw invalidInput('delete() takes an array of string ids.');
    if (ids.length === 0) return 0;
    return this.write(() => {
      // A deleted record's pending change still becomes its log record (history outlives the record).
      this.foldChanges(ids, ids);
      const deleted = this.stmt('DELETE FROM records WHERE id IN (SELECT value FROM json_each(?)) RETURNING rowid').all(
        JSON.stringify([...new Set(ids)]),
      ) as { rowid: number }[];
      this.keywords.deleted(ids);
      this.links.deleted(ids);
      if (this.hasVectorTable()) {
        const del = this.stmt(`DELETE FROM ${VECTOR_TABLE} WHERE rowid = ?`);
        const codes = this.denseIndex();
        for (const { rowid } of deleted) {
          del.run(BigInt(rowid));
          codes?.deleted(rowid);
        }
      }
      return deleted.length;
    });
  }

  async scan(options: ScanOptions): Promise<ScanPage> {
    if (!options || typeof options !== 'object')
      throw invalidInput('scan() takes { filter, cursor?, limit?, withVectors? }.');
    const limit = Math.min(MAX_PAGE, Math.max(1, Math.floor(options.limit ?? DEFAULT_PAGE)));
    if (options.cursor !== undefined && typeof options.cursor !== 'string')
      throw invalidInput('scan() cursor must be the string of the previous page.');
    const b = new SqlBuilder();
    const where = compileFilter(options.filter, b);
    if (!where.satisfiable) return { records: [] };
    const after = options.cursor === undefined ? '' : ` AND r.id > ${b.param(options.cursor)}`;
    const sql = (from: string) =>
      `SELECT ${COLUMNS} FROM ${from} r WHERE ${where.sql}${after} ORDER BY r.id LIMIT ${b.param(limit + 1)}`;
    return this.readSnapshot(() => {
      let rows: RecordRow[];
      if (this.source(true) === 'records') rows = this.stmt(sql('records')).all(b.params) as RecordRow[];
      else {
        // Each view's page in id order (one query over both would sort every remaining match for each
        // page), in one statement: one snapshot of the file, whatever another process commits meanwhile.
        rows = (
          this.stmt(`SELECT * FROM (${sql('records_now')}) UNION ALL SELECT * FROM (${sql('logged_records')})`).all(
            b.params,
          ) as RecordRow[]
        ).sort((x, y) => byCodePoint(x.id, y.id));
        if (rows.length > limit + 1) rows.length = limit + 1;
      }
      const more = rows.length > limit;
      const records = this.links.attach(
        (more ? rows.slice(0, limit) : rows).map((row) => this.decode(row, options.withVectors ?? false)),
      );
      return more ? { records, cursor: records[records.length - 1]!.id } : { records };
    });
  }

  /** Ids, scope and attributes only, in rowid order (the cursor is the last rowid): no text or payload is read. */
  async scanAttributes(options: AttributeScanOptions): Promise<AttributePage> {
    if (!options || typeof options !== 'object')
      throw invalidInput('scanAttributes() takes { filter, cursor?, limit?, attributes? }.');
    const wanted = options.attributes;
    if (
      wanted !== undefined &&
      (!Array.isArray(wanted) || wanted.some((k) => typeof k !== 'string' || k.includes('"')))
    )
      throw invalidInput(`scanAttributes() attributes must be a list of names without '"'.`);
    const limit = Math.min(MAX_PAGE, Math.max(1, Math.floor(options.limit ?? DEFAULT_PAGE)));
    if (options.cursor !== undefined && !/^-?\d+$/.test(options.cursor))
      throw invalidInput('scanAttributes() cursor must be the string of the previous page.');
    const b = new SqlBuilder();
    const where = compileFilter(options.filter, b);
    if (!where.satisfiable) return { records: [] };
    const after = options.cursor === undefined ? '' : ` AND r.rowid > ${b.param(Number(options.cursor))}`;
    const page = ` ORDER BY r.rowid LIMIT ${b.param(limit + 1)}`;
    // Named attributes as one short JSON array (what parsing the whole object cost was most of the JavaScript).
    const selected = (alias: string) =>
      wanted
        ? `json_array(${wanted.map((k) => `${alias}.attributes -> ${jsonPath(k)}`).join(', ') || 'NULL'})`
        : `json(${alias}.attributes)`;
    // The page's rowids first, from the filter's index alone: with the row's columns in the same query,
    // SQLite read (and sorted) every remaining matching row for each page.
    const plain =
      `SELECT o.rowid, o.id, o.namespace, o.tenant, ${selected('o')}, o.attr_status, 0 FROM records o WHERE o.rowid IN ` +
      `(SELECT r.rowid FROM records r WHERE ${where.sql}${after}${page}) ORDER BY o.rowid`;
    // With changes pending, each view in rowid order (log records have negative rowids: they come first).
    const merged = (from: 'records_now' | 'logged_records') =>
      `SELECT r.rowid, r.id, r.namespace, r.tenant, ${selected('r')}, r.attr_status, ${from === 'records_now' ? 'r.pending' : '1'} ` +
      `FROM ${from} r WHERE ${where.sql}${after}${page}`;
    return this.readSnapshot(() => {
      type Row = [number, string, string, string, string, unknown, number];
      let rows: Row[];
      // The last record with a pending change (null: none). Past it, and past every log record (their
      // rowids are negative), records itself is what the views would show: decay's pass pages on in it.
      const lastChanged = this.stmt('SELECT -min(log_rowid) FROM logged_changes').pluck().get() as number | null;
      if (lastChanged === null || (options.cursor !== undefined && Number(options.cursor) >= lastChanged))
        rows = this.stmt(plain).raw().all(b.params) as Row[];
      else {
        // Both views' pages in one statement (one snapshot); log records have negative rowids.
        rows = (
          this.stmt(`SELECT * FROM (${merged('logged_records')}) UNION ALL SELECT * FROM (${merged('records_now')})`)
            .raw()
            .all(b.params) as Row[]
        ).sort((x, y) => x[0] - y[0]);
      }
      const more = rows.length > limit;
      if (more) rows.length = limit;
      const frame = this.gate.current();
      // Inside a transaction of this backend (which holds the write lock): see scanMemo.
      const memo: ScanMemo | undefined =
        frame && wanted
          ? { frame, writes: this.writes, names: new Map(wanted.map((k, i) => [k, i])), rows: new Map() }
          : undefined;
      const records = rows.map(([rowid, id, namespace, tenant, attributes, status, pending]) => {
        let parsed: AttributeValue[];
        try {
          parsed = JSON.parse(attributes);
        } catch {
          parsed = parseColumn({ id, namespace, attributes } as RecordRow, 'attributes'); // throws, naming the record
        }
        if (memo && !pending) memo.rows.set(id, { rowid, status, values: parsed });
        return {
          id,
          namespace,
          tenant,
          attributes: wanted ? pick(wanted, parsed) : (parsed as unknown as Record<string, AttributeValue>),
        };
      });
      this.scanMemo = memo;
      return more ? { records, cursor: String(rows[rows.length - 1]![0]) } : { records };
    });
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
      if (k === 0 || this.dimension === undefined) return [];
      return this.read(
        () =>
          (this.denseMode === 'approximate'
            ? this.approximateDenseSearch(request.vector!, request.filter, k)
            : undefined) ?? this.denseSearch(request.vector!, request.filter, k),
      );
    }
    if (request.mode !== 'keyword')
      throw invalidInput(`Unknown search mode ${JSON.stringify(request.mode)}: use dense or keyword.`);
    if (typeof request.text !== 'string') throw invalidInput('A keyword search needs `text`.');
    const where = compileFilter(request.filter, new SqlBuilder()); // validates before waiting
    if (k === 0 || !where.satisfiable) return [];
    return this.read(() => this.keywordSearch(request.text!, request.filter, k));
  }

  async linked(query: LinkQuery): Promise<LinkedKey[]> {
    return this.readSnapshot(() => this.links.linked(query));
  }

  async linkKeys(options: LinkKeysOptions): Promise<LinkKeysPage> {
    return this.readSnapshot(() => this.links.linkKeys(options));
  }

  async count(filter: RecordFilter): Promise<number> {
    const b = new SqlBuilder();
    const where = compileFilter(filter, b);
    if (!where.satisfiable) return 0;
    return this.readSnapshot(() => {
      const count = (from: string) => `SELECT count(*) FROM ${from} r WHERE ${where.sql}`;
      // With changes pending, both views counted in one statement (one snapshot of the file).
      const sql =
        this.source(true) === 'records'
          ? count('records')
          : `SELECT (${count('records_now')}) + (${count('logged_records')})`;
      return this.stmt(sql).pluck().get(b.params) as number;
    });
  }

  async namespaces(options: { tenant?: string | null } = {}): Promise<NamespaceCount[]> {
    const tenant = typeof options.tenant === 'string' ? options.tenant : null;
    return this.readSnapshot(() => {
      const sql =
        `SELECT namespace, tenant, count(*) AS count FROM ${this.source(true)}` +
        (tenant === null ? '' : ' WHERE tenant = ?') +
        ' GROUP BY tenant, namespace ORDER BY tenant, namespace';
      return (tenant === null ? this.stmt(sql).all() : this.stmt(sql).all(tenant)) as NamespaceCount[];
    });
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
   * All or nothing, in one `BEGIN IMMEDIATE` transaction that holds the file's
   * write lock while `fn` runs (keep it short: other processes wait, up to
   * busyTimeoutMs). Nested calls become savepoints; calls from outside `fn`
   * wait until it ends.
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
        try {
          this.exec('BEGIN IMMEDIATE');
        } catch (error) {
          throw this.mapError(error);
        }
        this.keywords.mark();
      },
      fn,
      (ok) => {
        if (ok) {
          try {
            this.exec('COMMIT');
            this.codes?.committed();
            this.keywords.committed();
            return;
          } catch (error) {
            if (this.db.inTransaction) this.db.exec('ROLLBACK');
            this.codes?.rolledBack();
            this.keywords.rolledBack();
            throw error;
          }
        }
        if (this.db.inTransaction) this.db.exec('ROLLBACK');
        this.codes?.rolledBack();
        this.keywords.rolledBack();
      },
    );
  }

  async close(): Promise<void> {
    if (this.closed) return;
    if (!this.insideFrame()) await this.gate.idle();
    if (this.closed) return;
    if (!this.readonly) this.keywords.close();
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
    this.writes++;
    const inside = this.insideFrame() !== undefined;
    if (!inside) await this.gate.idle();
    this.assertOpen();
    const [begin, commit, rollback] = inside
      ? ['SAVEPOINT agentmem_op', 'RELEASE agentmem_op', 'ROLLBACK TO agentmem_op; RELEASE agentmem_op']
      : ['BEGIN IMMEDIATE', 'COMMIT', 'ROLLBACK'];
    try {
      this.exec(begin);
    } catch (error) {
      throw this.mapError(error);
    }
    const mark = this.codes?.mark() ?? 0;
    const keywordMark = this.keywords.mark();
    try {
      const result = fn();
      this.keywords.flush();
      this.exec(commit);
      if (!inside) {
        this.codes?.committed();
        this.keywords.committed();
      }
      return result;
    } catch (error) {
      if (this.db.inTransaction) this.db.exec(rollback);
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

  /**
   * Turns the pending logged changes of these ids (as a changed record's id or as a log record's)
   * into real rows, inside the caller's write: the log record inserted into records, the change
   * applied to its record's row (not to those in `deleting`, which the caller is about to delete).
   * Every write to a record or log record does this first, so it changes what reads showed.
   */
  private foldChanges(ids: readonly string[], deleting: readonly string[] = []): void {
    if (ids.length === 0 || !this.pendingChanges.get()) return;
    const json = JSON.stringify(ids);
    const pending = this.stmt(
      'SELECT c.log_rowid FROM json_each(?) AS i JOIN records r ON r.id = i.value JOIN logged_changes c ON c.log_rowid = -r.rowid ' +
        'UNION SELECT log_rowid FROM logged_changes WHERE log_id IN (SELECT value FROM json_each(?))',
    )
      .pluck()
      .all(json, json) as number[];
    if (pending.length === 0) return;
    const list = JSON.stringify(pending);
    this.stmt(
      `INSERT OR FAIL INTO records (${LOG_COLUMNS}) SELECT ${LOG_COLUMNS} FROM logged_records ` +
        'WHERE rowid IN (SELECT value FROM json_each(?)) ORDER BY changed',
    ).run(list);
    // The change rows go first: schema 8's triggers refuse to update or delete a record whose change is
    // pending (a process on an older version would not fold it).
    const changes = this.stmt(
      'DELETE FROM logged_changes WHERE log_rowid IN (SELECT value FROM json_each(?)) RETURNING log_rowid, batch, payload',
    )
      .raw()
      .all(list) as [number, number, string][];
    this.stmt(
      'UPDATE records SET attributes = jsonb_patch(records.attributes, b.attributes), ' +
        'payload = json_patch(records.payload, c.value ->> 2), attr_status = iif(b.sets_status, b.status, records.attr_status) ' +
        'FROM json_each(?) AS c JOIN logged_batches b ON b.rowid = c.value ->> 1 ' +
        'WHERE records.rowid = -(c.value ->> 0) AND records.id NOT IN (SELECT value FROM json_each(?))',
    ).run(JSON.stringify(changes), JSON.stringify(deleting));
    this.stmt(
      'DELETE FROM logged_batches WHERE NOT EXISTS (SELECT 1 FROM logged_changes c WHERE c.batch = logged_batches.rowid)',
    ).run();
  }

  /** The scan memo, when it still holds the stored values (see `scanMemo`). */
  private currentScanMemo(): ScanMemo | undefined {
    const memo = this.scanMemo;
    if (!memo) return undefined;
    const frame = this.gate.current();
    if (memo.frame !== frame || memo.writes !== this.writes) {
      this.scanMemo = undefined;
      return undefined;
    }
    return memo;
  }

  /** Whether the vector index exists; another process may have created it since this one opened. */
  private hasVectorTable(): boolean {
    this.dimension ??= this.readDimension();
    return this.dimension !== undefined;
  }

  private readDimension(): number | undefined {
    const row = this.db.prepare("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?").get(VECTOR_TABLE) as
      | { sql: string }
      | undefined;
    const match = row?.sql.match(/float\[(\d+)\]/);
    return match ? Number(match[1]) : undefined;
  }

  /** The binary index of this connection, once the file has vectors. */
  private denseIndex(): SqliteDenseIndex | undefined {
    if (this.codes === undefined && this.hasVectorTable()) this.codes = new SqliteDenseIndex(this.db, this.dimension!);
    return this.codes;
  }

  /**
   * Candidates by Hamming distance of sign-bit codes (in process), ranked by
   * the cosine of their int8 copies (in process), then the head of that
   * ranking read by rowid with the filter and ranked by exact cosine of the
   * float vectors; undefined when the binary index cannot serve or the filter
   * leaves too few candidates, and the exact search runs instead.
   */
  private approximateDenseSearch(vector: Float32Array, filter: RecordFilter, k: number): SearchHit[] | undefined {
    const namespaces = filter.namespaces ? namespaceList(filter.namespaces) : undefined;
    if (namespaces?.length === 0) return [];
    const index = this.denseIndex();
    if (!index) return undefined;
    const b = new SqlBuilder();
    const where = compileFilter(filter, b);
    if (!where.satisfiable) return [];
    const scope = { tenant: filter.tenant, namespaces };
    const total = index.size(scope);
    if (total === undefined) return undefined;
    // The int8 ranking is near-exact (on the bench corpus 4 rows beyond k already give the exact top k):
    // only its first passing rows are read, whole, with their floats.
    const head = k + Math.max(RESCORE_MARGIN, Math.ceil(k / 4));
    const rows = approximateCandidates(k, total, (m) => {
      const ranked = index.candidates(vector, scope, m);
      const passing: { row: RecordRow; vector: Float32Array }[] = [];
      let examined = 0;
      while (examined < ranked.length && passing.length < head) {
        // Read about as many as still needed, more when the filter has been turning rows away.
        const share = examined === 0 ? 1 : Math.max(passing.length / examined, 1 / 64);
        const size = Math.ceil((head - passing.length) / share);
        const chunk = ranked.slice(examined, examined + size);
        passing.push(
          ...this.snapshot(() =>
            index.rows<RecordRow>(chunk, COLUMNS, { sql: where.sql, params: b.params }, this.source(false)),
          ),
        );
        examined += chunk.length;
      }
      return { taken: ranked.length, examined, passing };
    });
    if (!rows) return undefined;
    return rows
      .map((r) => ({ row: r.row, score: cosineSimilarity(vector, r.vector) }))
      .sort((x, y) => y.score - x.score || (x.row.id < y.row.id ? -1 : 1))
      .slice(0, k)
      .map((t) => ({ record: this.decode(t.row, false), score: t.score }));
  }

  /**
   * KNN inside sqlite-vec, limited to the (tenant, namespace) partitions the
   * filter names; attribute conditions are applied by joining the candidates
   * with `records`, and the candidate pool grows until k match or none are left.
   */
  private denseSearch(vector: Float32Array, filter: RecordFilter, k: number): SearchHit[] {
    const query = vectorBlob(vector);
    const scope = new SqlBuilder();
    const parts: string[] = [];
    if (filter.tenant !== null) parts.push(`tenant = ${scope.param(filter.tenant)}`);
    if (filter.namespaces) {
      const ns = namespaceList(filter.namespaces);
      if (ns.length === 0) return [];
      parts.push(
        ns.length === 1
          ? `namespace = ${scope.param(ns[0])}`
          : `namespace IN (SELECT value FROM json_each(${scope.param(JSON.stringify(ns))}))`,
      );
    }
    const hasWhere = Object.values(filter.where ?? {}).some((c) => c !== undefined);
    const knnSql =
      `SELECT rowid, distance FROM ${VECTOR_TABLE} WHERE embedding MATCH @query AND k = @k` +
      parts.map((p) => ` AND ${p}`).join('');
    const fetch = new SqlBuilder();
    const where = compileFilter(filter, fetch);
    const fetchSql = (from: ReadSource) =>
      `SELECT ${COLUMNS} FROM ${from} r WHERE r.rowid IN (SELECT value FROM json_each(@rowids)) AND ${where.sql}`;
    // Usually most candidates match (core filters on active memories): start a little above k.
    let pool = Math.min(MAX_KNN, hasWhere ? k + Math.max(16, Math.ceil(k / 4)) : k);
    for (;;) {
      const candidates = this.stmt(knnSql).all({ ...scope.params, query, k: pool }) as {
        rowid: number;
        distance: number;
      }[];
      const distance = new Map(candidates.map((c) => [c.rowid, c.distance]));
      const rows = this.snapshot(
        () =>
          this.stmt(fetchSql(this.source(false))).all({
            ...fetch.params,
            rowids: JSON.stringify(candidates.map((c) => c.rowid)),
          }) as RecordRow[],
      );
      const exhausted = candidates.length < pool;
      if (rows.length >= k || exhausted) {
        return rows
          .map((row) => ({ row, d: distance.get(row.rowid)! }))
          .sort((a, b) => a.d - b.d || (a.row.id < b.row.id ? -1 : 1))
          .slice(0, k)
          .map(({ row, d }) => ({ record: this.decode(row, false), score: 1 - d }));
      }
      if (pool >= MAX_KNN) return this.exactDenseSearch(query, filter, k);
      // Grow by the observed share of matching candidates, at least doubling.
      const share = Math.max(rows.length / candidates.length, 1 / 256);
      pool = Math.min(MAX_KNN, Math.max(pool * 2, Math.ceil((k / share) * 1.25) + 16));
    }
  }

  /**
   * BM25F over the in-process keyword index (core's ranking, the same scores
   * as the in-memory backend): it counts the filter's corpus statistics and
   * scores the query terms' postings in typed arrays, then the k best rows are
   * read by id. A filter on attributes the index does not hold gets the ids
   * that pass it from SQL first.
   */
  private keywordSearch(text: string, filter: RecordFilter, k: number): SearchHit[] {
    let admit: ((id: string) => boolean) | undefined;
    if (!this.keywords.holds(filter)) {
      const b = new SqlBuilder();
      const where = compileFilter(filter, b);
      const ids = new Set(
        this.snapshot(
          () =>
            this.stmt(`SELECT r.id FROM ${this.source(false)} r WHERE ${where.sql}`)
              .pluck()
              .all(b.params) as string[],
        ),
      );
      admit = (id) => ids.has(id);
    }
    const matches = this.keywords.search(text, filter, k, admit);
    if (matches.length === 0) return [];
    const rows = this.rowsById(matches.map((m) => m.id));
    return matches.map((m) => ({ record: this.decode(rows.get(m.id)!, false), score: m.score }));
  }

  /** The rows with these ids, by id. */
  private rowsById(ids: readonly string[]): Map<string, RecordRow> {
    const rows = this.snapshot(
      () =>
        this.stmt(`SELECT ${COLUMNS} FROM ${this.source(false)} r WHERE r.id IN (SELECT value FROM json_each(?))`).all(
          JSON.stringify(ids),
        ) as RecordRow[],
    );
    return new Map(rows.map((row) => [row.id, row]));
  }

  /** Exact search over the records that match the filter, for filters too selective for KNN pools. */
  private exactDenseSearch(query: Buffer, filter: RecordFilter, k: number): SearchHit[] {
    const b = new SqlBuilder();
    const where = compileFilter(filter, b);
    const sql = (from: ReadSource) =>
      `SELECT ${COLUMNS}, vec_distance_cosine(v.embedding, ${b.param(query)}) AS distance ` +
      `FROM ${from} r JOIN ${VECTOR_TABLE} v ON v.rowid = r.rowid WHERE ${where.sql} ORDER BY distance, r.id LIMIT ${b.param(k)}`;
    const rows = this.snapshot(
      () => this.stmt(sql(this.source(false))).all(b.params) as (RecordRow & { distance: number })[],
    );
    return rows.map((row) => ({
      record: this.decode(row, false),
      score: 1 - row.distance,
    }));
  }

  private decode(row: RecordRow, withVector: boolean): BackendRecord {
    const record: BackendRecord = {
      id: row.id,
      namespace: row.namespace,
      tenant: row.tenant,
      text: row.text,
      attributes: parseColumn(row, 'attributes'),
      payload: parseColumn(row, 'payload'),
    };
    if (row.context) record.context = row.context;
    if (withVector && this.hasVectorTable()) {
      // The plain copy beside the sign-bit code (schema step 5): ~2 us a row, against ~0.3 ms out of vec0.
      const v = this.stmt(`SELECT embedding FROM ${CODES_TABLE} WHERE rowid = ?`).get(row.rowid) as
        | { embedding: Buffer }
        | undefined;
      if (v)
        record.vector = new Float32Array(
          v.embedding.buffer.slice(v.embedding.byteOffset, v.embedding.byteOffset + v.embedding.byteLength),
        );
    }
    return record;
  }

  /** Throws on a record upsert cannot write; encodeRecord then encodes it. */
  private checkRecord(r: BackendRecord): void {
    if (!r || typeof r !== 'object') throw invalidInput('Every record must be an object.');
    if (typeof r.id !== 'string' || r.id.length === 0) throw invalidInput('Every record needs a non-empty string id.');
    for (const field of ['namespace', 'tenant', 'text'] as const) {
      if (typeof r[field] !== 'string') throw invalidInput(`Record ${r.id}: ${field} must be a string.`, { id: r.id });
    }
    if (r.context !== undefined && typeof r.context !== 'string')
      throw invalidInput(`Record ${r.id}: context must be a string when given.`, { id: r.id });
    if (r.attributes === null || typeof r.attributes !== 'object')
      throw invalidInput(`Record ${r.id}: attributes must be an object.`);
    for (const k in r.attributes) if (Object.hasOwn(r.attributes, k)) checkAttribute(k, r.attributes[k]);
    checkPayload(r.payload);
    this.links.check(r);
    if (r.vector !== undefined) {
      if (!(r.vector instanceof Float32Array)) throw invalidInput(`Record ${r.id}: vector must be a Float32Array.`);
      if (!this.hasVectorTable()) throw invalidInput('Call init({ dimension }) before writing vectors.');
      this.checkDimension(r.vector);
    }
  }

  /** A record checkRecord accepted, as the statements write it. */
  private encodeRecord(r: BackendRecord): EncodedRow {
    return {
      id: r.id,
      namespace: r.namespace,
      tenant: r.tenant,
      text: r.text,
      context: r.context ?? '',
      // JSONB encoded here: jsonb() inside the INSERT (a function that may fail halfway through the
      // statement) would bring the statement journal back (see jsonb.ts).
      attributes: encodeAttributes(r.attributes),
      indexed: INDEXED_KEYS.map((key) => columnValue(r.attributes[key])),
      payload: JSON.stringify(r.payload), // checkRecord checked its shape
      vector: r.vector && vectorBlob(r.vector),
      floats: r.vector,
    };
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

/** A record checked and encoded for the statements that write it: its columns, attributes as JSONB. */
interface EncodedRow extends Omit<RecordRow, 'rowid' | 'attributes'> {
  attributes: Buffer;
  indexed: unknown[];
  /** The vector's bytes (a view of `floats`). */
  vector: Buffer | undefined;
  floats: Float32Array | undefined;
}

type VectorRow = EncodedRow & WrittenVector;

/** What scanAttributes returned inside a transaction (see `SqliteBackend.scanMemo`). */
interface ScanMemo {
  frame: object;
  writes: number;
  /** The attributes read, by name: their index in each row's values. */
  names: ReadonlyMap<string, number>;
  /** By id: rowid, status column, the named attributes' values (rows without a pending change only). */
  rows: Map<string, { rowid: number; status: unknown; values: readonly unknown[] }>;
}

/** A patchLogged patch as checked: its values for the compare-and-set statement, its log id and payload keys. */
interface EncodedLoggedPatch {
  id: string;
  expect: string[];
  /** [id, expected values in `expect` order] */
  values: unknown[];
  logId: string;
  /** The payload keys it sets, as a JSON object (a pending change's). */
  payloadJson: string;
  shape: string;
  payload: string[];
  payloadObject: JsonObject;
  /** No null or object among the payload values (a JSON merge patch sets them as they are). */
  deferrable: boolean;
}

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * The JSON path of a top-level key as an SQL string literal. Names never hold
 * '"' (refused on the way in); a "'" is doubled, so no name can end the
 * literal and put SQL of its own into the statement.
 */
function jsonPath(key: string): string {
  return `'$."${key.replaceAll("'", "''")}"'`;
}

function vectorBlob(v: Float32Array): Buffer {
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
}

/**
 * Consecutive runs of items of one shape (the same statement serves a run). A
 * repeated id ends a run: its second change must see the first, as one
 * statement per item in order would.
 */
function* shapeRuns<T extends { id: string; shape: string }>(items: readonly T[]): Generator<T[]> {
  for (let start = 0; start < items.length; ) {
    const { shape } = items[start]!;
    const ids = new Set<string>();
    let end = start;
    while (end < items.length && items[end]!.shape === shape && !ids.has(items[end]!.id)) ids.add(items[end++]!.id);
    yield items.slice(start, end);
    start = end;
  }
}

/**
 * Whether a patch's expected values are those a scan memo holds for its row (compared as the SQL
 * comparison would: column values, booleans as 1/0, missing as null); false when the memo has no
 * such row, the row had a pending change, or an expected key was not read.
 */
function memoMatches(memo: ScanMemo, patch: EncodedLoggedPatch): boolean {
  const row = memo.rows.get(patch.id);
  if (!row) return false;
  for (let j = 0; j < patch.expect.length; j++) {
    const key = patch.expect[j]!;
    const at = key === 'status' ? undefined : memo.names.get(key);
    if (key !== 'status' && at === undefined) return false;
    const stored = at === undefined ? row.status : row.values[at];
    if (stored === undefined || columnValue(stored) !== patch.values[j + 1]) return false;
  }
  return true;
}

/**
 * Strings in the order of SQLite's BINARY collation (UTF-8 bytes, that is code points): JavaScript's `<`
 * compares UTF-16 units, which puts supplementary characters (surrogate pairs) before U+E000..U+FFFF.
 */
function byCodePoint(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    const surrogateX = x >= 0xd800 && x <= 0xdfff;
    const surrogateY = y >= 0xd800 && y <= 0xdfff;
    if (surrogateX !== surrogateY) return surrogateX ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}

/**
 * The compare-and-set conditions of logged patches: ` AND <stored> IS p.value ->> i` for each expected
 * key, `p.value` being [id, expected values...]; a key with its own column is compared as the column
 * (no JSON read).
 */
function expectedSql(keys: readonly string[], table: string): string {
  return keys
    .map((k, j) => {
      const stored = Object.hasOwn(ATTRIBUTE_COLUMNS, k)
        ? `${table}.${ATTRIBUTE_COLUMNS[k]}`
        : `${table}.attributes ->> ${jsonPath(k)}`;
      return ` AND ${stored} IS p.value ->> ${j + 1}`;
    })
    .join('');
}

/** Named attributes from their values in order; missing (null) ones left out. */
function pick(names: readonly string[], values: AttributeValue[]): Record<string, AttributeValue> {
  const attributes: Record<string, AttributeValue> = {};
  for (let i = 0; i < names.length; i++) if (values[i] !== null) attributes[names[i]!] = values[i]!;
  return attributes;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function checkAttribute(key: string, value: unknown): void {
  if (key.includes('"')) throw invalidInput(`Attribute names cannot contain '"' (got ${JSON.stringify(key)}).`);
  checkAttributeValue(key, value);
}

/** An attribute as its column holds it: what json_extract returns (booleans as 1/0, missing as NULL). */
function columnValue(value: unknown): unknown {
  if (value === undefined) return null;
  return typeof value === 'boolean' ? Number(value) : value;
}

function checkPayload(payload: JsonObject): void {
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload))
    throw invalidInput('A record payload must be a JSON object.');
}

function encodePayload(payload: JsonObject): string {
  checkPayload(payload);
  return JSON.stringify(payload);
}

/** A JSON column of a stored row; a damaged one is a one-line error naming the record, not a bare SyntaxError. */
// biome-ignore lint/suspicious/noExplicitAny: the column is the JSON the backend itself wrote
function parseColumn(row: RecordRow, column: 'attributes' | 'payload'): any {
  try {
    return JSON.parse(row[column]);
  } catch (error) {
    throw new AgentMemoryError(
      'BACKEND_ERROR',
      `Record ${row.id} has a damaged ${column} column (not JSON). Restore the file from a snapshot, or forget the record (agentmem forget ${row.id}).`,
      { cause: error, details: { id: row.id, namespace: row.namespace, column } },
    );
  }
}
