import { type BackendRecord, invalidInput, type LoggedPatches } from '@agentmem/core';
import { encodeRecord, INDEXED_COLUMNS, INDEXED_NAMES, isObject, jsonPath } from '../records';
import type { StoreContext } from '../store';
import { checkRecord } from './write-records';

/**
 * `LoggedPatches.implied` checked and turned into SQL: the log records changed records implied
 * (core's `create` entries of memories `rememberMany` wrote), built from the rows about to change
 * by one `INSERT … SELECT` per batch, so a prune of such memories reads and encodes nothing in JS.
 */
export interface ImpliedLogs {
  /** The attribute marking a row that implies its log record. */
  marker: string;
  /** `json_type(<table>.attributes, marker) = 'true'`: whether a row carries the marker. */
  marked(table: string): string;
  /** The marker set to false, as a JSON object text (merged into a folded row's attributes). */
  unmark: string;
  /**
   * Writes the implied records of the marked rows among `source` (SQL after FROM binding `r` to the
   * records row and `l.value ->> 1` to the implied id), overwriting any with the same id.
   */
  insert(ctx: StoreContext, source: string, args: readonly unknown[]): void;
}

export function impliedLogs(ctx: StoreContext, implied: LoggedPatches['implied']): ImpliedLogs | undefined {
  if (implied === undefined) return undefined;
  const usage =
    'patchLogged() implied takes { marker, namespace, attributes, payload, keys: { id, ref, copy }, fromAttributes, fromPayload }.';
  if (!implied || typeof implied !== 'object' || !isObject(implied.keys)) throw invalidInput(usage);
  if (!isObject(implied.fromAttributes) || !isObject(implied.fromPayload)) throw invalidInput(usage);
  const { marker, keys } = implied;
  const names = [
    marker,
    keys.id,
    keys.ref,
    keys.copy,
    ...Object.entries(implied.fromAttributes).flat(),
    ...Object.entries(implied.fromPayload).flat(),
  ];
  for (const key of names) {
    if (typeof key !== 'string' || key === '' || key.includes('"'))
      throw invalidInput(
        `patchLogged() implied keys must be non-empty names without '"' (got ${JSON.stringify(key)}).`,
      );
  }
  const record: BackendRecord = {
    id: 'patchLogged implied log',
    namespace: implied.namespace,
    tenant: '',
    text: '',
    attributes: isObject(implied.attributes) ? { ...implied.attributes, [keys.ref]: '' } : implied.attributes,
    payload: implied.payload,
  };
  checkRecord(ctx, record); // what upsert would refuse in a log record is refused here too
  const template = encodeRecord(record);
  const ref = keys.ref;
  const taken = new Set([keys.id, ref, keys.copy]);
  for (const to of Object.keys(implied.fromPayload)) {
    if (taken.has(to))
      throw invalidInput(`patchLogged() implied.fromPayload cannot set ${to} (a key of implied.keys).`);
  }
  if (Object.hasOwn(implied.fromAttributes, ref))
    throw invalidInput(`patchLogged() implied.fromAttributes cannot set ${ref} (implied.keys.ref).`);
  // Attributes: the template with the record's id and the copied values (a value missing, null or ''
  // leaves its key out: a JSON merge patch's null removes it).
  const pairs = Object.entries(implied.fromAttributes).map(
    ([to, source]) => `${sqlText(to)}, json(nullif(nullif(r.attributes -> ${jsonPath(source)}, '""'), 'null'))`,
  );
  let attributes = `jsonb_set(?, ${jsonPath(ref)}, r.id)`;
  if (pairs.length > 0) attributes = `jsonb_patch(${attributes}, json_object(${pairs.join(', ')}))`;
  // Payload: JSON text put together in SQL, the record's payload copied in as it is stored (not parsed
  // and written again as json_set would: a fifth of the statement's CPU), keys in the template's order,
  // then the copy, then copied keys the template lacks.
  const member = (key: string) => `,${JSON.stringify(key)}:`;
  const copiedMember = (key: string, source: string) =>
    `ifnull(${sqlText(member(key))} || nullif(nullif(r.payload -> ${jsonPath(source)}, '""'), 'null'), '')`;
  const parts: string[] = [];
  const fromPayload = new Map(Object.entries(implied.fromPayload));
  if (!isObject(implied.payload)) throw invalidInput(usage);
  for (const [key, value] of Object.entries(implied.payload)) {
    if (key === keys.id) parts.push(`${sqlText(member(key))} || json_quote(l.value ->> 1)`);
    else if (key === ref) parts.push(`${sqlText(member(key))} || json_quote(r.id)`);
    else if (key === keys.copy) parts.push(`${sqlText(member(key))} || r.payload`);
    else if (fromPayload.has(key)) parts.push(copiedMember(key, fromPayload.get(key)!));
    else if (value !== undefined) parts.push(sqlText(member(key) + JSON.stringify(value)));
  }
  for (const key of [keys.id, ref, keys.copy]) {
    if (!Object.hasOwn(implied.payload, key)) {
      const value = key === keys.id ? 'json_quote(l.value ->> 1)' : key === ref ? 'json_quote(r.id)' : 'r.payload';
      parts.push(`${sqlText(member(key))} || ${value}`);
    }
  }
  for (const [key, source] of fromPayload)
    if (!Object.hasOwn(implied.payload, key)) parts.push(copiedMember(key, source));
  // Every part starts with a comma: the first one's is dropped.
  const payload = `'{' || substr(${parts.join(' || ')}, 2) || '}'`;
  // Indexed columns: the template's, the record's id for `ref`, a copied attribute's value.
  const columnArgs: unknown[] = [];
  const columns = INDEXED_COLUMNS.map(([key], j) => {
    if (key === keys.ref) return ', r.id';
    const source = implied.fromAttributes[key];
    if (source !== undefined) return `, nullif(r.attributes ->> ${jsonPath(source)}, '')`;
    columnArgs.push(template.indexed[j]);
    return ', ?';
  }).join('');
  const updates = [
    'namespace',
    'tenant',
    'text',
    'context',
    'attributes',
    'payload',
    ...INDEXED_NAMES.slice(2).split(', '),
  ]
    .map((c) => `${c} = excluded.${c}`)
    .join(', ');
  const marked = (table: string) => `json_type(${table}.attributes, ${jsonPath(marker)}) = 'true'`;
  return {
    marker,
    marked,
    unmark: JSON.stringify({ [marker]: false }),
    insert(ctx, source, args) {
      ctx
        .stmt(
          `INSERT INTO records (id, namespace, tenant, text, context, attributes, payload${INDEXED_NAMES}) ` +
            `SELECT l.value ->> 1, ?, r.tenant, '', '', ${attributes}, ${payload}${columns} ` +
            `FROM ${source} AND ${marked('r')} ON CONFLICT (id) DO UPDATE SET ${updates}`,
        )
        .run(template.namespace, template.attributes, ...columnArgs, ...args);
    },
  };
}

/** A string as an SQL literal. */
function sqlText(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}
