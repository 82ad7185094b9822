import { type BackendRecord, invalidInput, type JsonObject, type LoggedPatches } from '@agentmem/core';
import {
  checkAttribute,
  chunks,
  columnValue,
  type EncodedRow,
  encodeAttributes,
  encodeRecord,
  INDEXED_COLUMNS,
  INDEXED_KEYS,
  INDEXED_NAMES,
  isObject,
  jsonPath,
  multiRowInsert,
} from '../records';
import { ATTRIBUTE_COLUMNS } from '../schema';
import type { ScanMemo, StoreContext } from '../store';
import { foldChanges } from './fold-changes';
import { shapeRuns } from './shape-runs';
import { checkRecord, VECTOR_CHUNK_SIZES } from './write-records';

const INSERT_CHANGES = multiRowInsert('INSERT INTO logged_changes (log_rowid, batch, log_id, payload)', '(?, ?, ?, ?)');

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
export async function patchLogged(ctx: StoreContext, batch: LoggedPatches): Promise<string[]> {
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
  checkRecord(ctx, logRecord); // what upsert would refuse in a log record is refused here too
  const template = encodeRecord(logRecord);
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
    const memo = currentScanMemo(ctx);
    return ctx.write(() => deferLogged(ctx, batch, keys, template, encoded, memo));
  }
  const columns = keys.filter((k) => Object.hasOwn(ATTRIBUTE_COLUMNS, k));
  const set = keys.length === 0 ? 'attributes' : `jsonb_set(attributes${', ?, json(?)'.repeat(keys.length)})`;
  const setArgs = [
    ...keys.flatMap((k) => [`$."${k}"`, JSON.stringify(batch.attributes[k])]),
    ...columns.map((k) => columnValue(batch.attributes[k])),
  ];
  const setColumns = columns.map((k) => `, ${ATTRIBUTE_COLUMNS[k]} = ?`).join('');
  // Template columns; the one holding `ref` (when it has a column) gets the changed record's id.
  const logColumns = INDEXED_COLUMNS.map(([key]) => (key === ref ? ', r.id' : ', ?')).join('');
  const logColumnArgs = INDEXED_COLUMNS.flatMap(([key], j) => (key === ref ? [] : [template.indexed[j]]));
  const insert =
    `INSERT OR FAIL INTO records (id, namespace, tenant, text, context, attributes, payload${INDEXED_NAMES}) ` +
    `SELECT l.value ->> 1, ?, r.tenant, '', '', jsonb_set(?, ${jsonPath(ref)}, r.id), ` +
    `json_set(?, ${jsonPath(idKey)}, l.value ->> 1, ${jsonPath(ref)}, r.id, ${jsonPath(copy)}, json(r.payload))${logColumns} ` +
    `FROM json_each(?) AS l JOIN records r ON r.id = l.value ->> 0`;
  return ctx.write(() => {
    foldChanges(
      ctx,
      encoded.flatMap((p) => [p.id, p.logId]),
    ); // a log id in use is refused below, as before
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
        ctx
          .stmt(update)
          .pluck()
          .all(...setArgs, JSON.stringify(rows)) as string[],
      );
      if (done.size === 0) continue;
      const logged = run.filter((p) => done.has(p.id));
      ctx
        .stmt(insert)
        .run(
          template.namespace,
          template.attributes,
          template.payload,
          ...logColumnArgs,
          JSON.stringify(logged.map((p) => [p.id, p.logId])),
        );
      for (const p of logged) {
        ctx.keywords.patched(p.id, batch.attributes);
        changed.push(p.id);
      }
    }
    return changed;
  });
}

/** patchLogged's changes as pending rows of `logged_changes` (one `logged_batches` row for the call). */
function deferLogged(
  ctx: StoreContext,
  batch: LoggedPatches,
  keys: readonly string[],
  template: EncodedRow,
  encoded: readonly EncodedLoggedPatch[],
  memo: ScanMemo | undefined,
): string[] {
  // Rows just returned by scanAttributes under this transaction's write lock, unchanged since, and
  // without a pending change: compared in memory. Any other patch: folded, then compared in SQL.
  const known = memo && encoded.every((p) => memoMatches(memo, p));
  if (!known)
    foldChanges(
      ctx,
      encoded.map((p) => p.id),
    ); // compared below with the rows as reads show them
  const changed: string[] = [];
  let batchRowid: number | undefined;
  for (const run of shapeRuns(encoded)) {
    const first = run[0]!;
    let matched: [number, number][];
    if (known) matched = run.map((p, i) => [memo.rows.get(p.id)!.rowid, i]);
    else {
      matched = ctx
        .stmt(
          `SELECT r.rowid, p.key FROM json_each(?) AS p JOIN records r ON r.id = p.value ->> 0 WHERE 1${expectedSql(first.expect, 'r')} ORDER BY p.key`,
        )
        .raw()
        .all(JSON.stringify(run.map((p) => p.values))) as [number, number][];
    }
    if (matched.length === 0) continue;
    const taken = ctx
      .stmt(
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
        ctx
          .stmt(
            'INSERT INTO logged_batches (attributes, sets_status, status, log_namespace, log_attributes, log_payload, ' +
              'id_path, copy_path, log_kind, log_status, log_type, log_content_hash, log_occurred_at) ' +
              'VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
          )
          .run(
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
      ctx.stmt(INSERT_CHANGES(size)).run(...args); // spread: see insertSlice (write-records.ts)
    }
    for (const [, i] of matched) {
      ctx.keywords.patched(run[i]!.id, batch.attributes);
      changed.push(run[i]!.id);
    }
  }
  return changed;
}

/** The scan memo, when it still holds the stored values (see `StoreContext.scanMemo`). */
function currentScanMemo(ctx: StoreContext): ScanMemo | undefined {
  const memo = ctx.scanMemo;
  if (!memo) return undefined;
  if (memo.frame !== ctx.frame() || memo.writes !== ctx.writes) {
    ctx.scanMemo = undefined;
    return undefined;
  }
  return memo;
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
