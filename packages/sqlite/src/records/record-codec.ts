import {
  AgentMemoryError,
  type AttributeValue,
  type BackendRecord,
  checkAttributeValue,
  invalidInput,
  type JsonObject,
} from '@agentmem/core';
import { ATTRIBUTE_COLUMNS } from '../schema';
import { encodeAttributes } from './jsonb';

const INDEXED = Object.entries(ATTRIBUTE_COLUMNS);
/** Attribute keys with a column of their own (copies of the JSONB attributes, for indexes), in column order. */
export const INDEXED_KEYS = INDEXED.map(([key]) => key);
/** `, attr_a, attr_b...`: the indexed columns, after a column list. */
export const INDEXED_NAMES = INDEXED.map(([, column]) => `, ${column}`).join('');
export const INDEXED_SLOTS = ', ?'.repeat(INDEXED.length);
export const INDEXED_SETS = INDEXED.map(([, column]) => `, ${column} = ?`).join('');
/** [key, column] of the indexed attributes. */
export const INDEXED_COLUMNS: readonly (readonly [string, string])[] = INDEXED;
/** Values per row of an insert into records: seven columns and the indexed attribute copies. */
export const ROW_VALUES = 7 + INDEXED.length;

/** What reads select of a record, `r` being the row source. */
export const COLUMNS =
  'r.rowid AS rowid, r.id AS id, r.namespace AS namespace, r.tenant AS tenant, r.text AS text, r.context AS context, json(r.attributes) AS attributes, r.payload AS payload';

/**
 * What reads select from (schema step 8): `records` while no logged change is pending, else the views
 * that merge pending changes into their records (`records_now`) and also show their log records
 * (`records_all`).
 */
export type ReadSource = 'records' | 'records_now' | 'records_all';

/** A record as COLUMNS reads it. */
export interface RecordRow {
  rowid: number;
  id: string;
  namespace: string;
  tenant: string;
  text: string;
  context: string;
  attributes: string;
  payload: string;
}

/** A record checked and encoded for the statements that write it: its columns, attributes as JSONB. */
export interface EncodedRow extends Omit<RecordRow, 'rowid' | 'attributes'> {
  attributes: Buffer;
  indexed: unknown[];
  /** The vector's bytes (a view of `floats`). */
  vector: Buffer | undefined;
  floats: Float32Array | undefined;
}

/** A record whose shape and values upsert can write (the vector is the caller's to check). */
export function checkRecordShape(r: BackendRecord): void {
  if (!r || typeof r !== 'object') throw invalidInput('Every record must be an object.');
  if (typeof r.id !== 'string' || r.id.length === 0) throw invalidInput('Every record needs a non-empty string id.');
  // Three checks, not a loop over the names: V8 inlined the array's iteration into every compile of the write's checks.
  if (typeof r.namespace !== 'string') notAString(r, 'namespace');
  if (typeof r.tenant !== 'string') notAString(r, 'tenant');
  if (typeof r.text !== 'string') notAString(r, 'text');
  if (r.context !== undefined && typeof r.context !== 'string')
    throw invalidInput(`Record ${r.id}: context must be a string when given.`, { id: r.id });
  if (r.attributes === null || typeof r.attributes !== 'object')
    throw invalidInput(`Record ${r.id}: attributes must be an object.`);
  for (const k in r.attributes) if (Object.hasOwn(r.attributes, k)) checkAttribute(k, r.attributes[k]);
  checkPayload(r.payload);
}

function notAString(r: BackendRecord, field: 'namespace' | 'tenant' | 'text'): never {
  throw invalidInput(`Record ${r.id}: ${field} must be a string.`, { id: r.id });
}

/**
 * A record the write path accepted, as the statements write it. `payloads`: the JSON of payloads
 * encoded before in the same write, so a payload that holds one of them (a history entry's copy of
 * the memory written beside it) reuses its text instead of encoding it again.
 */
export function encodeRecord(r: BackendRecord, payloads?: PayloadTexts): EncodedRow {
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
    payload: payloadOf(r, payloads),
    vector: r.vector && vectorBlob(r.vector),
    floats: r.vector,
  };
}

/**
 * Columns a chunk of a bulk insert often shares (one scope, kind and status; one type and no context):
 * bound once a statement as named parameters (`@namespace`...) instead of once a row. A bound string
 * costs better-sqlite3 a UTF-8 copy and SQLite another (two allocations): six fewer a row saved
 * 0.5-1.5 µs of a memory (docs/benchmarks.md, ingest-14). Two groups: at most four statements a size.
 */
export const SHARED_SCOPE = 1; // namespace, tenant, kind, status
export const SHARED_DETAIL = 2; // context, type
const SHARED_KEYS: Readonly<Record<string, number>> = { kind: SHARED_SCOPE, status: SHARED_SCOPE, type: SHARED_DETAIL };

/** `(?, @namespace, ...)`: one row of a records insert (column order as rowValuesInto writes) with these columns shared. */
export function rowTuple(shared: number): string {
  const slot = (group: number, name: string) => (shared & group ? `@${name}` : '?');
  // id, namespace, tenant, text, context, attributes, payload, then the indexed attributes.
  const slots = ['?', slot(SHARED_SCOPE, 'namespace'), slot(SHARED_SCOPE, 'tenant'), '?'];
  slots.push(slot(SHARED_DETAIL, 'context'), '?', '?');
  for (const key of INDEXED_KEYS) slots.push(slot(SHARED_KEYS[key] ?? 0, key));
  return `(${slots.join(', ')})`;
}

/** Values a row binds itself by each set of SHARED_* bits: the `?` slots of its rowTuple. */
const ROW_VALUE_COUNTS = [0, 1, 2, 3].map((shared) => rowTuple(shared).split('?').length - 1);

/** Values a row binds itself (not shared): ROW_VALUES less the shared columns. */
export function rowValueCount(shared: number): number {
  return ROW_VALUE_COUNTS[shared]!;
}

/** Which groups of shareable columns records[from..from+size) all hold the same values in (SHARED_* bits). */
export function sharedColumns(records: readonly BackendRecord[], from: number, size: number): number {
  const first = records[from]!;
  const a = first.attributes;
  const namespace = first.namespace;
  const tenant = first.tenant;
  const kind = columnValue(a.kind);
  const status = columnValue(a.status);
  const context = first.context ?? '';
  const type = columnValue(a.type);
  let shared = SHARED_SCOPE | SHARED_DETAIL;
  for (let i = from + 1; i < from + size && shared !== 0; i++) {
    const r = records[i]!;
    const ra = r.attributes;
    if (
      r.namespace !== namespace ||
      r.tenant !== tenant ||
      columnValue(ra.kind) !== kind ||
      columnValue(ra.status) !== status
    )
      shared &= ~SHARED_SCOPE;
    if ((r.context ?? '') !== context || columnValue(ra.type) !== type) shared &= ~SHARED_DETAIL;
  }
  return shared;
}

/** The named parameters of a chunk's shared columns (its first record's values). */
export function sharedValues(r: BackendRecord, shared: number): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  if (shared & SHARED_SCOPE) {
    values.namespace = r.namespace;
    values.tenant = r.tenant;
    values.kind = columnValue(r.attributes.kind);
    values.status = columnValue(r.attributes.status);
  }
  if (shared & SHARED_DETAIL) {
    values.context = r.context ?? '';
    values.type = columnValue(r.attributes.type);
  }
  return values;
}

/**
 * Writes a record's values into `args` from `at`, in the order of an insert's column list (id,
 * namespace, tenant, text, context, attributes, payload, then INDEXED_NAMES), leaving out the
 * `shared` columns (rowTuple): rowValueCount(shared) of them; returns the next position. The same
 * values as encodeRecord's, without an object a record, for the multi-row inserts of a bulk create
 * (write-records.ts).
 */
export function rowValuesInto(
  r: BackendRecord,
  payloads: PayloadTexts | undefined,
  args: unknown[],
  at: number,
  shared = 0,
): number {
  const attributes = r.attributes;
  args[at++] = r.id;
  if (!(shared & SHARED_SCOPE)) {
    args[at++] = r.namespace;
    args[at++] = r.tenant;
  }
  args[at++] = r.text;
  if (!(shared & SHARED_DETAIL)) args[at++] = r.context ?? '';
  args[at++] = encodeAttributes(attributes); // JSONB in JavaScript: see encodeRecord
  args[at++] = payloadOf(r, payloads);
  for (let k = 0; k < INDEXED_KEYS.length; k++) {
    const key = INDEXED_KEYS[k]!;
    if (shared & (SHARED_KEYS[key] ?? 0)) continue;
    args[at++] = columnValue(attributes[key]);
  }
  return at;
}

/** The payload's JSON text as the statements write it (see encodeRecord for `payloads`). */
export function payloadOf(r: BackendRecord, payloads: PayloadTexts | undefined): string {
  return payloads ? payloadText(r.payload, payloads) : JSON.stringify(r.payload); // checkRecordShape checked its shape
}

/** The JSON texts of plain payload objects one write has encoded, by object (none changes during the write). */
export type PayloadTexts = Map<object, string>;

/**
 * The payload texts one write keeps, or `undefined` when no record of it holds another's payload as
 * a value (a history entry's copy of the memory written beside it), so none would be reused: kept,
 * every payload's text (5,000 of ~540 bytes for a `rememberMany` batch, which writes no history
 * rows) lived until the write ended, outliving the young generation's collections.
 */
export function payloadTextsFor(records: readonly BackendRecord[]): PayloadTexts | undefined {
  if (records.length < 2) return undefined;
  // The loops in functions that start with them: what ran before a loop in a function's first call
  // had no type feedback yet, and V8's compiled code bailed out there (../../core store/remember-batch).
  const payloads = new Set<object>();
  addPayloads(records, payloads);
  return holdsPayload(records, payloads) ? new Map() : undefined;
}

function addPayloads(records: readonly BackendRecord[], payloads: Set<object>): void {
  for (let i = 0; i < records.length; i++) payloads.add(records[i]!.payload);
}

/** Whether a record's payload holds one of `payloads` as a value. */
function holdsPayload(records: readonly BackendRecord[], payloads: ReadonlySet<object>): boolean {
  // for...in (no key array per record); it also visits inherited keys, which only errs towards a map.
  for (let i = 0; i < records.length; i++) {
    const values = records[i]!.payload as Record<string, unknown>;
    for (const key in values) {
      const value = values[key];
      if (value !== null && typeof value === 'object' && value !== values && payloads.has(value)) return true;
    }
  }
  return false;
}

/**
 * `JSON.stringify(payload)`, with the text of a value already encoded in this write put in as it
 * is: the same text, since a plain object without `toJSON` encodes the same wherever it sits.
 * Only payloads whose other values are primitives are composed (nothing else could differ).
 */
function payloadText(payload: JsonObject, payloads: PayloadTexts): string {
  if (!isPlainJsonObject(payload)) return JSON.stringify(payload);
  const same = payloads.get(payload);
  if (same !== undefined) return same;
  const values = payload as Record<string, unknown>;
  const keys = Object.keys(values);
  // First only whether it can be composed (a memory's own payload, whose tags and metadata were not
  // encoded before, is not: composing its first keys and then encoding it whole was wasted work).
  let known = false;
  for (const key of keys) {
    const value = values[key];
    if (value !== null && typeof value === 'object') {
      known = payloads.has(value);
      if (!known) break;
    } else if (typeof value === 'bigint') {
      known = false;
      break; // JSON.stringify's own error
    }
  }
  if (known) {
    let composed = '';
    for (const key of keys) {
      const value = values[key];
      const text =
        value !== null && typeof value === 'object'
          ? payloads.get(value)
          : value === undefined || typeof value === 'function' || typeof value === 'symbol'
            ? undefined
            : JSON.stringify(value);
      if (text !== undefined) composed = `${composed === '' ? '{' : `${composed},`}${JSON.stringify(key)}:${text}`;
    }
    return `${composed}}`;
  }
  const text = JSON.stringify(payload);
  payloads.set(payload, text);
  return text;
}

function isPlainJsonObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return (proto === Object.prototype || proto === null) && !('toJSON' in value);
}

/** A stored row as a record, without its vector. */
export function decodeRow(row: RecordRow): BackendRecord {
  const record: BackendRecord = {
    id: row.id,
    namespace: row.namespace,
    tenant: row.tenant,
    text: row.text,
    attributes: parseColumn(row, 'attributes'),
    payload: parseColumn(row, 'payload'),
  };
  if (row.context) record.context = row.context;
  return record;
}

/** A JSON column of a stored row; a damaged one is a one-line error naming the record, not a bare SyntaxError. */
// biome-ignore lint/suspicious/noExplicitAny: the column is the JSON the backend itself wrote
export function parseColumn(row: RecordRow, column: 'attributes' | 'payload'): any {
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

export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export function checkAttribute(key: string, value: unknown): void {
  if (key.includes('"')) throw invalidInput(`Attribute names cannot contain '"' (got ${JSON.stringify(key)}).`);
  checkAttributeValue(key, value);
}

/** An attribute as its column holds it: what json_extract returns (booleans as 1/0, missing as NULL). */
export function columnValue(value: unknown): unknown {
  if (value === undefined) return null;
  return typeof value === 'boolean' ? Number(value) : value;
}

function checkPayload(payload: JsonObject): void {
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload))
    throw invalidInput('A record payload must be a JSON object.');
}

export function encodePayload(payload: JsonObject): string {
  checkPayload(payload);
  return JSON.stringify(payload);
}

/**
 * The JSON path of a top-level key as an SQL string literal. Names never hold
 * '"' (refused on the way in); a "'" is doubled, so no name can end the
 * literal and put SQL of its own into the statement.
 */
export function jsonPath(key: string): string {
  return `'$."${key.replaceAll("'", "''")}"'`;
}

export function vectorBlob(v: Float32Array): Buffer {
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
}

/** Named attributes from their values in order; missing (null) ones left out. */
export function pick(names: readonly string[], values: AttributeValue[]): Record<string, AttributeValue> {
  const attributes: Record<string, AttributeValue> = {};
  for (let i = 0; i < names.length; i++) if (values[i] !== null) attributes[names[i]!] = values[i]!;
  return attributes;
}

/**
 * Strings in the order of SQLite's BINARY collation (UTF-8 bytes, that is code points): JavaScript's `<`
 * compares UTF-16 units, which puts supplementary characters (surrogate pairs) before U+E000..U+FFFF.
 */
export function byCodePoint(a: string, b: string): number {
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
