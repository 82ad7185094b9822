import { AgentMemoryError, type BackendRecord, invalidInput, type RecordPatch } from '@agentmem/core';
import {
  checkAttribute,
  ChunkArgs,
  checkRecordShape,
  chunks,
  columnValue,
  type EncodedRow,
  encodePayload,
  encodeRecord,
  INDEXED_NAMES,
  INDEXED_SETS,
  multiRowInsert,
  type PayloadTexts,
  payloadTextsFor,
  rowTuple,
  rowValueCount,
  rowValuesInto,
  sharedColumns,
  sharedValues,
} from '../records';
import { ATTRIBUTE_COLUMNS } from '../schema';
import type { StoreContext } from '../store';
import type { WrittenVector } from '../vector';
import { foldChanges } from './fold-changes';
import { shapeRuns } from './shape-runs';

/** Records encoded at a time by upsert (see flush). */
const ENCODE_SLICE = 512;
/**
 * Rows per multi-row statement of vector rows: a whole slice per statement (2,048 parameters) cut the
 * statement journal's page copies of the vec0 table files had before schema 13 by a third (34.5k to
 * 23.4k pages for 50k memories, docs/benchmarks.md, issue 16); logged patches still write that way.
 */
export const VECTOR_CHUNK_SIZES = [ENCODE_SLICE, 128, 32, 8, 1];
/** The records insert by row count, for each set of shared columns (rowTuple; index: SHARED_* bits). */
const INSERT_RECORDS = [0, 1, 2, 3].map((shared) =>
  multiRowInsert(
    `INSERT OR FAIL INTO records (id, namespace, tenant, text, context, attributes, payload${INDEXED_NAMES})`,
    rowTuple(shared),
  ),
);

type VectorRow = EncodedRow & WrittenVector;

/** Writes records: new ids inserted in multi-row statements, known ids updated in place, in the order given. */
export async function upsert(ctx: StoreContext, records: readonly BackendRecord[]): Promise<void> {
  if (!Array.isArray(records)) throw invalidInput('upsert() takes an array of records.');
  checkRecords(ctx, records); // all checked before anything is written
  if (records.length === 0) return;
  await ctx.write(() => {
    const ids: string[] = new Array(records.length);
    for (let i = 0; i < records.length; i++) ids[i] = records[i]!.id;
    foldChanges(ctx, ids);
    // New rows go in with multi-row statements: every statement journals the pages it first changes,
    // so one statement per row cost ~4x the CPU of the rows themselves. The ids probed straight from
    // the list (CROSS JOIN keeps json_each outside): `id IN (SELECT ...)` first built and sorted a
    // temporary index of the list, about 3x the CPU (a repeated id gives its row twice; a map dedups).
    const found = ctx
      .stmt('SELECT r.id, r.rowid FROM json_each(?) AS j CROSS JOIN records AS r ON r.id = j.value')
      .raw()
      .all(JSON.stringify(ids)) as [string, number][];
    // A history entry holds a copy of the memory written beside it: its JSON is encoded once (when the
    // write holds such a copy; else no text is kept past its slice).
    const payloads = payloadTextsFor(records);
    // Every record new and each id once (a bulk create): inserted in order, with no map of rowids or
    // list of pending records (nothing is updated in place), and no old links to remove.
    const allNew = found.length === 0 && new Set(ids).size === ids.length;
    if (allNew) {
      for (let start = 0; start < records.length; start += ENCODE_SLICE)
        insertSlice(ctx, records, start, Math.min(start + ENCODE_SLICE, records.length), payloads);
    } else writeMixed(ctx, records, new Map(found), payloads);
    ctx.keywords.written(records);
    ctx.links.written(records, allNew);
  });
}

/** Records some of whose ids are in the file (`existing`: id to rowid) or repeat: inserts and updates, in order. */
function writeMixed(
  ctx: StoreContext,
  records: readonly BackendRecord[],
  existing: Map<string, number>,
  payloads: PayloadTexts | undefined,
): void {
  let fresh: BackendRecord[] = [];
  const freshIds = new Set<string>();
  const flush = () => {
    // Encoded a slice at a time: a whole batch's encoded rows (JSON, JSONB, codes: ~3 KB a memory with
    // its history row) outlived many young-generation collections, each copying them again.
    for (let start = 0; start < fresh.length; start += ENCODE_SLICE) {
      const end = Math.min(start + ENCODE_SLICE, fresh.length);
      const rowids = insertSlice(ctx, fresh, start, end, payloads);
      for (let i = start; i < end; i++) existing.set(fresh[i]!.id, rowids[i - start]!);
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
    const row = encodeRecord(record, payloads);
    const rowid = existing.get(row.id)!;
    ctx
      .stmt(
        `UPDATE records SET namespace = ?, tenant = ?, text = ?, context = ?, attributes = ?, payload = ?${INDEXED_SETS} WHERE rowid = ?`,
      )
      .run(row.namespace, row.tenant, row.text, row.context, row.attributes, row.payload, ...row.indexed, rowid);
    // A new vector replaces the row's (INSERT OR REPLACE); none removes it.
    if (!row.vector && ctx.hasVectorTable()) ctx.denseIndex()?.deleted(rowid);
    writeVectors(ctx, [row], [rowid]);
  }
  flush();
}

/**
 * Inserts records[start..end), whose ids are not in the file, with their vectors, in chunks of
 * multi-row statements (no trigger, so they keep no statement journal; the caller's savepoint makes
 * the whole batch atomic); their rowids, in order. Each chunk's statement arguments are written from the records straight into an array kept
 * per chunk size (no encoded row, indexed-value list or argument array per record or chunk: a
 * batch's garbage is what young-generation collections pay for).
 */
function insertSlice(
  ctx: StoreContext,
  records: readonly BackendRecord[],
  start: number,
  end: number,
  payloads: PayloadTexts | undefined,
): number[] {
  // The loops over rows are functions of their own: in this function they made V8 compile all of it
  // on-stack, then again after a deopt (docs/benchmarks.md, ingest-16).
  const rowids: number[] = new Array(end - start);
  for (const [offset, size] of chunks(end - start)) {
    const from = start + offset;
    // Columns every row of the chunk holds the same value in are bound once (rowTuple).
    const shared = sharedColumns(records, from, size);
    const args = rowArgs(records, from, size, payloads, shared);
    // No RETURNING (it buffered every row and built an object per row): a multi-row insert gives its rows
    // consecutive rowids, one above the largest, in VALUES order; checked on the chunk's first row.
    // Spread, not the array: better-sqlite3 reads an array argument's values one API call each (`Get`),
    // about 1.5 µs a 13-value row more than the call's own arguments (docs/benchmarks.md, ingest-14).
    const statement = ctx.stmt(INSERT_RECORDS[shared]!(size));
    const result = shared === 0 ? statement.run(...args) : statement.run(...args, sharedValues(records[from]!, shared));
    args.fill(undefined); // the arrays are kept; the batch's texts are not
    const first = Number(result.lastInsertRowid) - size + 1;
    if (ctx.stmt('SELECT id FROM records WHERE rowid = ?').pluck().get(first) !== records[from]!.id)
      throw new AgentMemoryError('BACKEND_ERROR', `${ctx.path}: inserted rows did not get consecutive rowids.`);
    numberRows(rowids, offset, size, first);
  }
  // The slice's vectors after its rows, in one writtenMany.
  const vectors = slicedVectors(records, start, end, rowids);
  if (vectors) indexVectors(ctx, vectors.rowids, vectors.rows, true);
  return rowids;
}

/** The records insert's arguments for records[from..from+size) (rowValuesInto each), in an array kept per count. */
function rowArgs(
  records: readonly BackendRecord[],
  from: number,
  size: number,
  payloads: PayloadTexts | undefined,
  shared: number,
): unknown[] {
  const args = rowArgArrays.of(size, rowValueCount(shared));
  let at = 0;
  for (let i = from; i < from + size; i++) at = rowValuesInto(records[i]!, payloads, args, at, shared);
  return args;
}

/** rowids[offset..offset+size) = first, first + 1, ... */
function numberRows(rowids: number[], offset: number, size: number, first: number): void {
  for (let i = 0; i < size; i++) rowids[offset + i] = first + i;
}

/** The vectors of records[start..end) that have one, with their rowids (`rowids[i - start]`); none: undefined. */
function slicedVectors(
  records: readonly BackendRecord[],
  start: number,
  end: number,
  rowids: readonly number[],
): { rows: WrittenVector[]; rowids: number[] } | undefined {
  let rows: WrittenVector[] | undefined;
  let vectorRowids: number[] | undefined;
  for (let i = start; i < end; i++) {
    const r = records[i]!;
    const floats = r.vector;
    if (!floats) continue;
    if (!rows) {
      rows = [];
      vectorRowids = [];
    }
    rows.push({ tenant: r.tenant, namespace: r.namespace, floats });
    vectorRowids!.push(rowids[i - start]!);
  }
  return rows ? { rows, rowids: vectorRowids! } : undefined;
}

/** The records insert's argument arrays, reused. */
const rowArgArrays = new ChunkArgs();

/**
 * The vectors of the rows (rowids[i] is rows[i]'s) that have one: written once, with their sign codes,
 * into the codes table (the binary index's `writtenMany`, multi-row statements), which exact search
 * scans too (schema 13: no vec0 copy).
 */
function writeVectors(ctx: StoreContext, rows: readonly EncodedRow[], rowids: readonly number[]): void {
  let withVector = rows as readonly VectorRow[];
  let vectorRowids = rowids;
  if (!rows.every((r) => r.vector)) {
    withVector = rows.filter((r): r is VectorRow => r.vector !== undefined);
    vectorRowids = rowids.filter((_, i) => rows[i]!.vector);
  }
  if (withVector.length > 0) indexVectors(ctx, vectorRowids, withVector);
}

/**
 * Vectors of rows just written (their rowids, in order) into the codes table and the dense index;
 * `fresh`: the rows were just inserted (no vector of theirs can be in the table: see writtenMany).
 */
function indexVectors(
  ctx: StoreContext,
  rowids: readonly number[],
  vectors: readonly WrittenVector[],
  fresh = false,
): void {
  const index = ctx.denseIndex();
  if (!index) throw invalidInput('Call init({ dimension }) before writing vectors.');
  index.writtenMany(rowids, vectors, fresh);
}

/** Rewrites attributes (merged key by key) and payload only; the text and vector indexes are not touched. */
export async function patch(ctx: StoreContext, patches: readonly RecordPatch[]): Promise<number> {
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
  return ctx.write(() => {
    foldChanges(
      ctx,
      encoded.map((p) => p.id),
    );
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
        changed += ctx.stmt(sql).run(...args, ...first.columnValues, first.payload, first.id).changes;
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
        changed += ctx.stmt(sql).run(...first.keys.map((k) => `$."${k}"`), JSON.stringify(rows)).changes;
      }
      for (const p of run) ctx.keywords.patched(p.id, p.attributes);
    }
    return changed;
  });
}

/** Deletes records with their vectors, codes, keyword postings and links; a pending change still becomes its log record. */
export async function deleteRecords(ctx: StoreContext, ids: readonly string[]): Promise<number> {
  if (!Array.isArray(ids) || ids.some((id) => typeof id !== 'string'))
    throw invalidInput('delete() takes an array of string ids.');
  if (ids.length === 0) return 0;
  return ctx.write(() => {
    // A deleted record's pending change still becomes its log record (history outlives the record).
    foldChanges(ctx, ids, ids);
    const deleted = ctx
      .stmt('DELETE FROM records WHERE id IN (SELECT value FROM json_each(?)) RETURNING rowid')
      .all(JSON.stringify([...new Set(ids)])) as { rowid: number }[];
    ctx.keywords.deleted(ids);
    ctx.links.deleted(ids);
    const codes = ctx.denseIndex();
    if (codes) for (const { rowid } of deleted) codes.deleted(rowid);
    return deleted.length;
  });
}

/**
 * checkRecord of each record. A function of its own: the loop in the async upsert made V8 compile all
 * of upsert for it (docs/benchmarks.md, ingest-15).
 */
function checkRecords(ctx: StoreContext, records: readonly BackendRecord[]): void {
  // checkRecord's body, not a call of it: a callee that runs once a record in a batch's first call
  // is compiled on its own, then again inlined into this loop's code (checkRecord: ~15-30 ms of V8's
  // compiler a fresh process, one of its largest compiles; docs/benchmarks.md, ingest-compile).
  for (let i = 0; i < records.length; i++) {
    const r = records[i]!;
    checkRecordShape(r);
    ctx.links.check(r);
    if (r.vector !== undefined) checkVector(ctx, r);
  }
}

/** Throws on a record upsert cannot write; encodeRecord then encodes it. */
export function checkRecord(ctx: StoreContext, r: BackendRecord): void {
  checkRecordShape(r);
  ctx.links.check(r);
  if (r.vector !== undefined) checkVector(ctx, r);
}

/** Throws on a record's vector upsert cannot write. */
function checkVector(ctx: StoreContext, r: BackendRecord): void {
  if (!(r.vector instanceof Float32Array)) throw invalidInput(`Record ${r.id}: vector must be a Float32Array.`);
  if (!ctx.hasVectorTable()) throw invalidInput('Call init({ dimension }) before writing vectors.');
  ctx.checkDimension(r.vector);
}
