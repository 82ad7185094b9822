import { type BackendRecord, invalidInput, type SearchRequest } from '@agentmem/core';
import { COLUMNS, decodeRow, jsonPath, parseColumn, pick, type RecordRow } from '../records';

/** What a search reads of each hit's row, and how it makes the hit's record of it. */
export interface HitColumns {
  /** Columns over the row source `r`, as `RecordRow` names them (`rowid` and `id` always). */
  sql: string;
  decode(row: RecordRow): BackendRecord;
}

const WHOLE: HitColumns = { sql: COLUMNS, decode: decodeRow };

/**
 * Whole rows, or for a partial search (`SearchRequest.partial`) the id, scope and named attributes as
 * one short JSON array: no text, context or payload is read or parsed (recall reads whole records for
 * the few it returns).
 */
export function hitColumns(attributes: readonly string[] | undefined): HitColumns {
  if (attributes === undefined) return WHOLE;
  const values = attributes.map((k) => `r.attributes -> ${jsonPath(k)}`).join(', ') || 'NULL';
  return {
    sql: `r.rowid AS rowid, r.id AS id, r.namespace AS namespace, r.tenant AS tenant, json_array(${values}) AS attributes`,
    decode: (row) => ({
      id: row.id,
      namespace: row.namespace,
      tenant: row.tenant,
      text: '',
      attributes: pick(attributes, parseColumn(row, 'attributes')),
      payload: {},
    }),
  };
}

/** A search request's `partial` checked: its attribute names, or undefined for whole records. */
export function partialAttributes(partial: SearchRequest['partial']): readonly string[] | undefined {
  if (partial === undefined) return undefined;
  const names = (partial as { attributes?: unknown } | null)?.attributes;
  if (!Array.isArray(names) || names.some((k) => typeof k !== 'string' || k.includes('"')))
    throw invalidInput(`search() partial must be { attributes: [...] }, a list of attribute names without '"'.`);
  return names;
}
