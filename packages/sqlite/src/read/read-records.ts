import type {
  AttributePage,
  AttributeScanOptions,
  AttributeValue,
  BackendRecord,
  NamespaceCount,
  RecordFilter,
  ScanOptions,
  ScanPage,
} from '@agentmem/core';
import { invalidInput } from '@agentmem/core';
import { compileFilter, SqlBuilder, type SqlParams } from '../query';
import { byCodePoint, COLUMNS, decodeRow, jsonPath, parseColumn, pick, type RecordRow } from '../records';
import { ATTRIBUTE_COLUMNS, CODES_TABLE } from '../schema';
import type { ScanMemo, StoreContext } from '../store';

const DEFAULT_PAGE = 500;
const MAX_PAGE = 10_000;

export async function get(
  ctx: StoreContext,
  ids: readonly string[],
  options: { tenant?: string | null; withVectors?: boolean } = {},
): Promise<BackendRecord[]> {
  if (!Array.isArray(ids) || ids.some((id) => typeof id !== 'string'))
    throw invalidInput('get() takes an array of string ids.');
  if (ids.length === 0) return [];
  const tenant = typeof options.tenant === 'string' ? options.tenant : null;
  return ctx.readSnapshot(() => {
    const source = ctx.source(true);
    // From the table, the ids are probed straight from the list (CROSS JOIN keeps json_each outside;
    // each id is once in it): `id IN (SELECT ...)` first built and sorted a temporary index of the list,
    // ~2x the CPU (0.7-1.1 against 1.1-3.2 µs an id, docs/benchmarks.md, ingest-16). The views keep it.
    const sql =
      source === 'records'
        ? `SELECT ${COLUMNS} FROM json_each(?) AS j CROSS JOIN records r ON r.id = j.value${tenant === null ? '' : ' WHERE r.tenant = ?'}`
        : `SELECT ${COLUMNS} FROM ${source} r WHERE r.id IN (SELECT value FROM json_each(?))${tenant === null ? '' : ' AND r.tenant = ?'}`;
    const args: unknown[] = [JSON.stringify([...new Set(ids)])];
    if (tenant !== null) args.push(tenant);
    const rows = ctx.stmt(sql).all(...args) as RecordRow[];
    return ctx.links.attach(rows.map((row) => decode(ctx, row, options.withVectors ?? true)));
  });
}

/** The stored vectors of these records, by id: the plain copies beside the sign-bit codes, no record read whole. */
export async function vectors(
  ctx: StoreContext,
  ids: readonly string[],
  options: { tenant?: string | null } = {},
): Promise<Map<string, Float32Array>> {
  if (!Array.isArray(ids) || ids.some((id) => typeof id !== 'string'))
    throw invalidInput('vectors() takes an array of string ids.');
  const tenant = typeof options.tenant === 'string' ? options.tenant : null;
  if (ids.length === 0) return new Map();
  return ctx.readSnapshot(() => {
    if (!ctx.hasVectorTable()) return new Map();
    // The records' source as `get` reads it (its rowid, existence and tenant), joined with the vectors.
    const sql =
      `SELECT r.id, v.embedding FROM ${ctx.source(true)} r JOIN ${CODES_TABLE} v ON v.rowid = r.rowid ` +
      `WHERE r.id IN (SELECT value FROM json_each(?))${tenant === null ? '' : ' AND r.tenant = ?'}`;
    const args: unknown[] = [JSON.stringify([...new Set(ids)])];
    if (tenant !== null) args.push(tenant);
    const rows = ctx
      .stmt(sql)
      .raw()
      .all(...args) as [string, Buffer][];
    return new Map(rows.map(([id, v]) => [id, blobFloats(v)]));
  });
}

/** A vector blob as a Float32Array of its own (a copy: the blob may share a buffer, at any byte offset). */
function blobFloats(v: Buffer): Float32Array {
  return new Float32Array(v.buffer.slice(v.byteOffset, v.byteOffset + v.byteLength));
}

export async function scan(ctx: StoreContext, options: ScanOptions): Promise<ScanPage> {
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
  return ctx.readSnapshot(() => {
    let rows: RecordRow[];
    const hashes = ctx.source(true) === 'records' ? hashList(options.filter) : undefined;
    if (hashes) {
      const h = byHashes(options.filter, hashes, options.cursor, limit);
      rows = ctx.stmt(h.sql).all(h.params) as RecordRow[];
    } else if (ctx.source(true) === 'records') rows = ctx.stmt(sql('records')).all(b.params) as RecordRow[];
    else {
      // Each view's page in id order (one query over both would sort every remaining match for each
      // page), in one statement: one snapshot of the file, whatever another process commits meanwhile.
      rows = (
        ctx
          .stmt(`SELECT * FROM (${sql('records_now')}) UNION ALL SELECT * FROM (${sql('logged_records')})`)
          .all(b.params) as RecordRow[]
      ).sort((x, y) => byCodePoint(x.id, y.id));
      if (rows.length > limit + 1) rows.length = limit + 1;
    }
    const more = rows.length > limit;
    const records = ctx.links.attach(
      (more ? rows.slice(0, limit) : rows).map((row) => decode(ctx, row, options.withVectors ?? false)),
    );
    return more ? { records, cursor: records[records.length - 1]!.id } : { records };
  });
}

/**
 * The strings of a filter's `contentHash: { in: [...] }` (each once), when there are several and all
 * are strings: the duplicate check of a write (MemoryStore's lookup by content, 500 hashes a page).
 */
function hashList(filter: RecordFilter): string[] | undefined {
  const condition = filter?.where?.contentHash;
  if (condition === null || typeof condition !== 'object' || !('in' in condition)) return undefined;
  const values = condition.in;
  if (!Array.isArray(values) || values.length < 2 || !values.every((v) => typeof v === 'string')) return undefined;
  return [...new Set(values as string[])];
}

/**
 * scan's statement for a list of content hashes: each probed straight from the list (CROSS JOIN keeps
 * json_each outside; each hash once in it), the rest of the filter as compiled. `hash IN (SELECT ...)`
 * first built and sorted a temporary index of the list, ~1.5x the CPU (docs/benchmarks.md, ingest-16).
 * A hash matches few rows, so driving from the list reads no more than the IN form did.
 */
function byHashes(
  filter: RecordFilter,
  hashes: readonly string[],
  cursor: string | undefined,
  limit: number,
): { sql: string; params: SqlParams } {
  const b = new SqlBuilder();
  const { contentHash: _, ...others } = filter.where ?? {};
  const rest = compileFilter({ ...filter, where: others }, b); // satisfiable: the whole filter was
  const after = cursor === undefined ? '' : ` AND r.id > ${b.param(cursor)}`;
  const sql =
    `SELECT ${COLUMNS} FROM json_each(${b.param(JSON.stringify(hashes))}) AS j CROSS JOIN records r ` +
    `ON r.${ATTRIBUTE_COLUMNS.contentHash} = j.value WHERE ${rest.sql}${after} ORDER BY r.id LIMIT ${b.param(limit + 1)}`;
  return { sql, params: b.params };
}

/** Ids, scope and attributes only, in rowid order (the cursor is the last rowid): no text or payload is read. */
export async function scanAttributes(ctx: StoreContext, options: AttributeScanOptions): Promise<AttributePage> {
  if (!options || typeof options !== 'object')
    throw invalidInput('scanAttributes() takes { filter, cursor?, limit?, attributes? }.');
  const wanted = options.attributes;
  if (wanted !== undefined && (!Array.isArray(wanted) || wanted.some((k) => typeof k !== 'string' || k.includes('"'))))
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
  return ctx.readSnapshot(() => {
    type Row = [number, string, string, string, string, unknown, number];
    let rows: Row[];
    // The last record with a pending change (null: none). Past it, and past every log record (their
    // rowids are negative), records itself is what the views would show: decay's pass pages on in it.
    const lastChanged = ctx.stmt('SELECT -min(log_rowid) FROM logged_changes').pluck().get() as number | null;
    if (lastChanged === null || (options.cursor !== undefined && Number(options.cursor) >= lastChanged))
      rows = ctx.stmt(plain).raw().all(b.params) as Row[];
    else {
      // Both views' pages in one statement (one snapshot); log records have negative rowids.
      rows = (
        ctx
          .stmt(`SELECT * FROM (${merged('logged_records')}) UNION ALL SELECT * FROM (${merged('records_now')})`)
          .raw()
          .all(b.params) as Row[]
      ).sort((x, y) => x[0] - y[0]);
    }
    const more = rows.length > limit;
    if (more) rows.length = limit;
    const frame = ctx.frame();
    // Inside a transaction of this backend (which holds the write lock): see scanMemo.
    const memo: ScanMemo | undefined =
      frame && wanted
        ? { frame, writes: ctx.writes, names: new Map(wanted.map((k, i) => [k, i])), rows: new Map() }
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
    ctx.scanMemo = memo;
    return more ? { records, cursor: String(rows[rows.length - 1]![0]) } : { records };
  });
}

export async function count(ctx: StoreContext, filter: RecordFilter): Promise<number> {
  const b = new SqlBuilder();
  const where = compileFilter(filter, b);
  if (!where.satisfiable) return 0;
  return ctx.readSnapshot(() => {
    const count = (from: string) => `SELECT count(*) FROM ${from} r WHERE ${where.sql}`;
    // With changes pending, both views counted in one statement (one snapshot of the file).
    const sql =
      ctx.source(true) === 'records'
        ? count('records')
        : `SELECT (${count('records_now')}) + (${count('logged_records')})`;
    return ctx.stmt(sql).pluck().get(b.params) as number;
  });
}

export async function namespaces(
  ctx: StoreContext,
  options: { tenant?: string | null } = {},
): Promise<NamespaceCount[]> {
  const tenant = typeof options.tenant === 'string' ? options.tenant : null;
  return ctx.readSnapshot(() => {
    const sql =
      `SELECT namespace, tenant, count(*) AS count FROM ${ctx.source(true)}` +
      (tenant === null ? '' : ' WHERE tenant = ?') +
      ' GROUP BY tenant, namespace ORDER BY tenant, namespace';
    return (tenant === null ? ctx.stmt(sql).all() : ctx.stmt(sql).all(tenant)) as NamespaceCount[];
  });
}

/** A stored row as a record, with its vector when asked and the file has one. */
export function decode(ctx: StoreContext, row: RecordRow, withVector: boolean): BackendRecord {
  const record = decodeRow(row);
  if (withVector && ctx.hasVectorTable()) {
    // The plain copy beside the sign-bit code (schema step 5): ~2 us a row, against ~0.3 ms out of vec0.
    const v = ctx.stmt(`SELECT embedding FROM ${CODES_TABLE} WHERE rowid = ?`).get(row.rowid) as
      | { embedding: Buffer }
      | undefined;
    if (v) record.vector = blobFloats(v.embedding);
  }
  return record;
}
