import { invalidInput } from '@agentmem/core';

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

/** The quoted, schema-qualified names of one store's tables. */
export interface TableNames {
  schema: string;
  table: string;
  /** `"schema"."table"`: the records. */
  records: string;
  /** Store metadata (embedder id and dimension, format version). */
  meta: string;
  /** Applied schema migrations. */
  migrations: string;
  /** Unquoted `schema.table`, for messages. */
  label: string;
  /** Key of the advisory lock that serialises migrations and init of this store. */
  lockKey: string;
}

export const DEFAULT_SCHEMA = 'public';
export const DEFAULT_TABLE = 'agentmem_records';

/**
 * Names are checked rather than escaped: lower-case identifiers only, so that
 * they never need quoting in a psql session, an RLS policy or a migration.
 */
export function tableNames(schema = DEFAULT_SCHEMA, table = DEFAULT_TABLE): TableNames {
  for (const [what, name] of [
    ['schema', schema],
    ['table', table],
  ] as const) {
    if (typeof name !== 'string' || !IDENTIFIER.test(name)) {
      throw invalidInput(
        `Postgres ${what} name ${JSON.stringify(name)} is not a plain identifier: use lower-case letters, digits and _ (at most 63, not starting with a digit).`,
      );
    }
  }
  if (table.length > 52)
    throw invalidInput(
      `Postgres table name ${table} is too long: at most 52 characters (the meta and migration tables add suffixes).`,
    );
  const q = (name: string) => `"${schema}"."${name}"`;
  return {
    schema,
    table,
    records: q(table),
    meta: q(`${table}_meta`),
    migrations: q(`${table}_migrations`),
    label: `${schema}.${table}`,
    lockKey: `agentmem:${schema}.${table}`,
  };
}
