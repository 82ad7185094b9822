import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, openSync, readSync, renameSync, rmSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  AgentMemoryError,
  type BackendRecord,
  type MemoryBackend,
  type MemoryKeyReader,
  type RecordKey,
  type SnapshotFormat,
  type SnapshotWriter,
  type SourceRecordReader,
} from '@agentmem/core';
import { SqliteBackend } from '../backend';
import { parseColumn, type RecordRow } from '../records';
import { ensureParentDirectory, isAgentmemDatabase, isSqliteError } from '../schema';

function removeFiles(path: string): void {
  for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(`${path}${suffix}`, { force: true });
}

function snapshotError(code: 'NOT_A_SNAPSHOT' | 'CORRUPT_SNAPSHOT', path: string, why: string, cause?: unknown) {
  return new AgentMemoryError(
    code,
    `${path} is not a usable agentmem snapshot: ${why}. Nothing was changed; ask for a new snapshot (agentmem snapshot PATH).`,
    { cause, details: { path } },
  );
}

function isSqliteFile(path: string): boolean {
  const fd = openSync(path, 'r');
  try {
    const header = Buffer.alloc(16);
    return readSync(fd, header, 0, 16, 0) === 16 && header.toString('latin1') === 'SQLite format 3\u0000';
  } finally {
    closeSync(fd);
  }
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** quick_check's report (one line per problem) as one line: how many pages are damaged, and the first problem. */
export function describeDamage(report: readonly string[]): string {
  // A row may hold several problems, one per line, under a "*** in database main ***" banner.
  const problems = report
    .flatMap((r) => r.split('\n'))
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('***'));
  const pages = new Set<string>();
  for (const p of problems) for (const m of p.matchAll(/page (\d+)/gi)) pages.add(m[1]!);
  const n = pages.size > 0 ? pages.size : problems.length;
  const what = pages.size > 0 ? 'damaged page' : 'problem';
  const first = oneLine(problems[0] ?? 'unknown');
  return `${n} ${what}${n === 1 ? '' : 's'} (first: ${first.length > 120 ? `${first.slice(0, 119)}…` : first})`;
}

/** Checks the destination; returns it and the temporary file the snapshot is written to first. */
function prepareTarget(path: string, overwrite: boolean | undefined): { target: string; temp: string } {
  const target = resolve(path);
  if (existsSync(target)) {
    if (!overwrite) {
      throw new AgentMemoryError(
        'INVALID_INPUT',
        `${target} already exists. Choose another path, or pass { overwrite: true }.`,
        {
          details: { path: target },
        },
      );
    }
    if (statSync(target).isDirectory())
      throw new AgentMemoryError('INVALID_INPUT', `${target} is a directory; give a file path.`);
  }
  ensureParentDirectory(target);
  return { target, temp: `${target}.tmp-${process.pid}-${randomBytes(4).toString('hex')}` };
}

function writerFor(backend: SqliteBackend, target: string, temp: string): SnapshotWriter {
  return {
    backend,
    async commit() {
      // One self-contained file: no -wal beside it.
      backend.database.pragma('journal_mode = DELETE');
      await backend.close();
      removeFiles(target);
      renameSync(temp, target);
    },
    async abort() {
      await backend.close();
      removeFiles(temp);
    },
  };
}

/**
 * The pages of a read in rowid order, `read(after)` giving the rows past rowid `after` (a row's first
 * column is its rowid), from Number.MIN_SAFE_INTEGER up (a forged or hand-edited file may hold rowids
 * at or below 0). Other work runs between pages. The last page is shorter than `size` (maybe empty).
 */
async function* rowidPages<Row extends [number, ...unknown[]]>(
  size: number,
  read: (after: number) => Row[],
): AsyncGenerator<Row[]> {
  let after = Number.MIN_SAFE_INTEGER;
  for (;;) {
    const rows = read(after);
    yield rows;
    if (rows.length < size) return;
    after = rows[rows.length - 1]![0];
    await new Promise((resolve) => setImmediate(resolve)); // let other work run between pages
  }
}

const KEY_PAGE = 2_000;

/**
 * Memory keys straight from the records table: the kind and the content
 * hash from their columns (the copies the write path keeps of those
 * attributes for indexes), updatedAt from the JSONB attributes, so payloads
 * are never parsed (three `json_extract` a row cost about as much as reading
 * the source's payloads). Rowid order over the table itself (`+` keeps
 * SQLite from choosing an index that would need a sort per page).
 */
const readMemoryKeys: MemoryKeyReader = async (backend, filter) => {
  // Another caller's transaction on this connection: let the contract path wait for it.
  if (!(backend instanceof SqliteBackend) || backend.database.inTransaction) return undefined;
  if (filter.namespaces.length === 0) return [];
  const tenant = filter.tenant === null ? '' : ' AND +tenant = ?';
  const statement = backend.database
    .prepare(
      `SELECT rowid, id, namespace, tenant, attr_content_hash AS hash, attributes ->> '$.updatedAt' AS updatedAt
     FROM records
     WHERE rowid > ? AND +attr_kind = 'memory' AND +namespace IN (${filter.namespaces.map(() => '?').join(', ')})${tenant}
     ORDER BY rowid LIMIT ${KEY_PAGE}`,
    )
    .raw(); // rows as arrays: no object of column names a row (100k of them)
  const params = [...filter.namespaces, ...(filter.tenant === null ? [] : [filter.tenant])];
  const keys: RecordKey[] = [];
  type KeyRow = [number, string, string, string, string, number | null];
  for await (const rows of rowidPages(KEY_PAGE, (after) => statement.all(after, ...params) as KeyRow[]))
    for (const [, id, namespace, tenant, hash, updatedAt] of rows)
      keys.push({ id, kind: 'memory', namespace, tenant, hash, updatedAt: updatedAt ?? 0 });
  return keys;
};

const RECORD_PAGE = 1_000;

/** rowid, id, namespace, tenant, `attributes -> '$.kind'` (JSON text, or null when absent), payload. */
type SourceRow = [number, string, string, string, string | null, string];

/** A payload's JSON; a damaged one is the error a full read of the record gives. */
// biome-ignore lint/suspicious/noExplicitAny: the column's JSON, as JSON.parse gives it
function parsePayload(id: string, namespace: string, payload: string): any {
  try {
    return JSON.parse(payload);
  } catch {
    return parseColumn({ id, namespace, payload } as RecordRow, 'payload');
  }
}

/**
 * A merge's source records straight from the records table, in rowid order:
 * one pass over the file, where the contract's scan in id order read every
 * matching row for its first page (a sort) and then each again. Only what
 * the write policy reads: id, scope, the attributes' kind (filtered by the
 * kind column, as the scan filters) and the payload, parsed once; text,
 * context and the other attributes are derived again from the payload.
 * While a logged change is pending, a page is read from `records_now`, the
 * records with their changes merged in (what the contract's scan reads).
 */
const readSourceRecords: SourceRecordReader = (backend, filter) => {
  // Another caller's transaction on this connection: let the contract path wait for it.
  if (!(backend instanceof SqliteBackend) || backend.database.inTransaction) return undefined;
  const db = backend.database;
  const scope = (from: string) =>
    db
      .prepare(
        `SELECT rowid, id, namespace, tenant, attributes -> '$.kind' AS kind, payload FROM ${from}
       WHERE rowid > ? AND +attr_kind IN (${filter.kinds.map(() => '?').join(', ')})
         AND +namespace IN (${filter.namespaces.map(() => '?').join(', ')})${filter.tenant === null ? '' : ' AND +tenant = ?'}
       ORDER BY rowid LIMIT ${RECORD_PAGE}`,
      )
      .raw(); // rows as arrays (SourceRow's order): no object of column names a row
  const pending = db.prepare('SELECT EXISTS (SELECT 1 FROM logged_changes)').pluck();
  const params = [...filter.kinds, ...filter.namespaces, ...(filter.tenant === null ? [] : [filter.tenant])];
  async function* pages(): AsyncGenerator<BackendRecord[]> {
    if (filter.namespaces.length === 0 || filter.kinds.length === 0) return;
    const plain = scope('records');
    let merged: ReturnType<typeof scope> | undefined;
    const read = (after: number) => {
      let statement = plain;
      if (pending.get()) {
        merged ??= scope('records_now');
        statement = merged;
      }
      return statement.all(after, ...params) as SourceRow[];
    };
    for await (const rows of rowidPages(RECORD_PAGE, read))
      yield rows.map(([, id, namespace, tenant, kind, payload]) => ({
        id,
        namespace,
        tenant,
        text: '',
        // The kind as the attributes' JSON holds it (a forged file may hold something else than in attr_kind).
        attributes: { kind: kind === '"memory"' ? 'memory' : kind === '"skill"' ? 'skill' : kindOf(kind) },
        payload: parsePayload(id, namespace, payload),
      }));
  }
  return pages();
};

// biome-ignore lint/suspicious/noExplicitAny: whatever JSON a forged file holds, as JSON.parse gives it
function kindOf(json: string | null): any {
  return json === null ? undefined : JSON.parse(json);
}

/**
 * Snapshots opened without locks (a WAL-mode file read in place), with the file's state before the open:
 * a process that opens it as a store and checkpoints into it changes its size, times or inode.
 */
const readInPlace = new WeakMap<SqliteBackend, { path: string; state: string }>();

function fileState(path: string): string {
  const s = statSync(path, { bigint: true, throwIfNoEntry: false });
  return s ? `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}` : 'missing';
}

/**
 * Snapshots as one SQLite file in the schema of `SqliteBackend`, so a
 * snapshot also opens as an ordinary store (`createSqliteMemory({ path })`);
 * the manifest lives in its meta table. Written to a temporary file and
 * renamed into place when complete, in rollback-journal mode so that the
 * single file is the whole snapshot.
 */
export const sqliteSnapshotFormat: SnapshotFormat = {
  id: 'sqlite',
  readMemoryKeys,
  readSourceRecords,

  changedSinceOpen(backend): boolean {
    const opened = readInPlace.get(backend as SqliteBackend);
    return opened !== undefined && fileState(opened.path) !== opened.state;
  },

  async create(path, options): Promise<SnapshotWriter> {
    const { target, temp } = prepareTarget(path, options.overwrite);
    return writerFor(new SqliteBackend({ path: temp }), target, temp);
  },

  /** SQLite to SQLite: `VACUUM INTO` copies the whole file in one consistent read, far faster than record by record. */
  async copyOf(source, path, options): Promise<SnapshotWriter | undefined> {
    // Another caller's transaction is open on this connection: copy through the contract instead (it waits for it).
    if (!(source instanceof SqliteBackend) || source.database.inTransaction) return undefined;
    if (resolve(path) === source.path) {
      throw new AgentMemoryError(
        'INVALID_INPUT',
        `${source.path} is this store's own file; write the snapshot to another path.`,
        {
          details: { path: source.path },
        },
      );
    }
    const { target, temp } = prepareTarget(path, options.overwrite);
    try {
      source.database.prepare('VACUUM INTO ?').run(temp);
    } catch (error) {
      removeFiles(temp);
      throw error;
    }
    return writerFor(new SqliteBackend({ path: temp }), target, temp);
  },

  async open(path): Promise<MemoryBackend> {
    const target = resolve(path);
    if (!existsSync(target)) {
      throw new AgentMemoryError(
        'NOT_FOUND',
        `No snapshot at ${target}. Check the path (snapshots are made with agentmem snapshot PATH).`,
        {
          details: { path: target },
        },
      );
    }
    const info = statSync(target);
    if (info.isDirectory()) throw snapshotError('NOT_A_SNAPSHOT', target, 'it is a directory');
    if (info.size === 0) throw snapshotError('NOT_A_SNAPSHOT', target, 'the file is empty');
    // Judged by the header before SQLite opens it: a foreign or empty SQLite file is not ours, whatever its schema.
    if (!isAgentmemDatabase(target)) {
      throw snapshotError(
        'NOT_A_SNAPSHOT',
        target,
        isSqliteFile(target) ? 'it is a SQLite database agentmem did not write' : 'it is not an agentmem SQLite file',
      );
    }
    const before = fileState(target);
    let backend: SqliteBackend;
    try {
      // A snapshot handed to a merge is a finished file: a WAL-mode one is read in place without locks
      // (schema's openImmutable), so every read is checked against the file as it was (changedSinceOpen).
      // The plan reads every page once (quick_check, then the records): mapped whole, no page is copied
      // through SQLite's cache (a tenth less CPU at 100k). Touched pages count in RSS until the merge
      // closes the file; the copy this replaced held the file twice, in the process's own memory.
      backend = new SqliteBackend({ path: target, readonly: true, finished: true, mmapBytes: info.size });
    } catch (error) {
      if (!AgentMemoryError.hasCode(error, 'NOT_A_DATABASE')) throw error;
      // Our header but unreadable pages: a damaged (e.g. truncated) snapshot.
      throw snapshotError('CORRUPT_SNAPSHOT', target, `the file is damaged (${oneLine(error.message)})`, error);
    }
    try {
      const problems = (backend.database.pragma('quick_check(1000)') as { quick_check: string }[]).map(
        (r) => r.quick_check,
      );
      if (problems.length !== 1 || problems[0] !== 'ok') {
        throw snapshotError('CORRUPT_SNAPSHOT', target, `SQLite reports damage: ${describeDamage(problems)}`);
      }
      if (backend.database.name.startsWith('file:')) readInPlace.set(backend, { path: target, state: before });
      return backend;
    } catch (error) {
      await backend.close();
      if (isSqliteError(error, 'SQLITE_CORRUPT', 'SQLITE_NOTADB')) {
        throw snapshotError(
          'CORRUPT_SNAPSHOT',
          target,
          `the file is damaged (${oneLine((error as Error).message)})`,
          error,
        );
      }
      throw error;
    }
  },
};
