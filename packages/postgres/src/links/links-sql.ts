import {
  checkLinks,
  filterNamespaces,
  invalidInput,
  type LinkedKey,
  type LinkKeysOptions,
  type LinkKeysPage,
  type LinkQuery,
  linkQueryKeys,
} from '@agentmem/core';
import type pg from 'pg';
import type { TableNames } from '../schema/names';
import { linksTable } from './links-migration';

type Query = (text: string, values?: unknown[]) => Promise<pg.QueryResult>;

/** Largest page `linkKeys` returns (never a limit on the total). */
const MAX_KEYS_PAGE = 1000;

/** A record's links as upsert writes them: checked, each key once. */
export function encodeLinks(id: string, links: unknown): string[] {
  checkLinks(id, links);
  return [...new Set((links as string[] | undefined) ?? [])];
}

/**
 * Replaces the links of these records (inside the upsert's transaction): the
 * old rows go, the new ones are written in one statement.
 */
export async function writeLinks(
  q: Query,
  n: TableNames,
  rows: readonly { id: string; tenant: string; namespace: string; links: readonly string[] }[],
): Promise<void> {
  const table = linksTable(n);
  await q(`DELETE FROM ${table} WHERE record_id = ANY($1::text[])`, [rows.map((r) => r.id)]);
  const flat = rows.flatMap((r) => r.links.map((key) => [key, r.tenant, r.namespace, r.id] as const));
  if (flat.length === 0) return;
  await q(
    `INSERT INTO ${table} (key, tenant, namespace, record_id) SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[])`,
    [flat.map((f) => f[0]), flat.map((f) => f[1]), flat.map((f) => f[2]), flat.map((f) => f[3])],
  );
}

/** The links of these records, by record id (one query). */
export async function readLinks(q: Query, n: TableNames, ids: readonly string[]): Promise<Map<string, string[]>> {
  if (ids.length === 0) return new Map();
  const result = await q(
    `SELECT record_id, array_agg(key ORDER BY key) AS keys FROM ${linksTable(n)} WHERE record_id = ANY($1::text[]) GROUP BY record_id`,
    [[...new Set(ids)]],
  );
  return new Map((result.rows as { record_id: string; keys: string[] }[]).map((r) => [r.record_id, r.keys]));
}

/** Records with their links attached (as `get` and `scan` return them). */
export async function withLinks<T extends { id: string; links?: string[] }>(
  q: Query,
  n: TableNames,
  records: T[],
): Promise<T[]> {
  const links = await readLinks(
    q,
    n,
    records.map((r) => r.id),
  );
  for (const r of records) {
    const keys = links.get(r.id);
    if (keys) r.links = keys;
  }
  return records;
}

/** The scope conditions of a link query on alias `l`, with their parameters from `$first` on. */
function scopeSql(query: { tenant: string | null; namespaces?: readonly string[] }, params: unknown[]): string {
  let sql = '';
  if (query.tenant !== null) {
    if (typeof query.tenant !== 'string') throw invalidInput('tenant must be a string or null.');
    params.push(query.tenant);
    sql += ` AND l.tenant = $${params.length}`;
  }
  if (query.namespaces !== undefined) {
    params.push(filterNamespaces(query.namespaces));
    sql += ` AND l.namespace = ANY($${params.length}::text[])`;
  }
  return sql;
}

/** Per key, its count in scope and its first `limit` record ids after `after` (one statement for every key). */
export async function linked(q: Query, n: TableNames, query: LinkQuery): Promise<LinkedKey[]> {
  const keys = linkQueryKeys(query);
  if (keys.length === 0) return [];
  if (query.namespaces !== undefined && query.namespaces.length === 0)
    return keys.map((key) => ({ key, count: 0, ids: [] }));
  const params: unknown[] = [keys];
  const scope = scopeSql(query, params);
  params.push(query.after ?? null, query.limit, query.maxCount ?? null);
  const after = `$${params.length - 2}::text`;
  const limit = `$${params.length - 1}::int`;
  const maxCount = `$${params.length}::int`;
  const table = linksTable(n);
  const result = await q(
    `SELECT k.key, c.count, coalesce(i.ids, '{}') AS ids FROM unnest($1::text[]) WITH ORDINALITY AS k(key, o)
      CROSS JOIN LATERAL (SELECT count(*)::int AS count FROM ${table} l WHERE l.key = k.key${scope}) c
      CROSS JOIN LATERAL (SELECT array_agg(s.record_id ORDER BY s.record_id) AS ids FROM (
        SELECT l.record_id FROM ${table} l WHERE (${maxCount} IS NULL OR c.count <= ${maxCount}) AND l.key = k.key${scope}
          AND (${after} IS NULL OR l.record_id > ${after})
        ORDER BY l.record_id LIMIT ${limit}) s) i
      ORDER BY k.o`,
    params,
  );
  return (result.rows as { key: string; count: number; ids: string[] }[]).map((r) => ({
    key: r.key,
    count: r.count,
    ids: r.ids,
  }));
}

/** Every key in scope with its count, page by page in key order. */
export async function linkKeys(q: Query, n: TableNames, options: LinkKeysOptions): Promise<LinkKeysPage> {
  if (!options || typeof options !== 'object')
    throw invalidInput('linkKeys() takes { tenant, namespaces?, prefix?, cursor?, limit? }.');
  if (options.namespaces !== undefined && options.namespaces.length === 0) return { keys: [] };
  const limit = Math.min(MAX_KEYS_PAGE, Math.max(1, Math.floor(options.limit ?? MAX_KEYS_PAGE)));
  const params: unknown[] = [];
  let where = `true${scopeSql(options, params)}`;
  if (options.prefix) {
    params.push(options.prefix);
    // starts_with compares bytes in the C collation, as JavaScript's startsWith compares code units.
    where += ` AND starts_with(l.key, $${params.length})`;
  }
  if (options.cursor !== undefined) {
    params.push(options.cursor);
    where += ` AND l.key > $${params.length}`;
  }
  params.push(limit + 1);
  const result = await q(
    `SELECT l.key, count(*)::int AS count FROM ${linksTable(n)} l WHERE ${where} GROUP BY l.key ORDER BY l.key LIMIT $${params.length}`,
    params,
  );
  const rows = result.rows as { key: string; count: number }[];
  const keys = rows.slice(0, limit).map((r) => ({ key: r.key, count: r.count }));
  return rows.length > limit ? { keys, cursor: keys[keys.length - 1]!.key } : { keys };
}
