import { AgentMemoryError } from '@agentmem/core';
import type { PoolClient } from 'pg';
import { LINKS_MIGRATION } from '../links/links-migration';
import { MAX_OCCURRED_AT_MS, MIN_OCCURRED_AT_MS } from '../query/occurred-at';
import type { Migration } from './migration';
import type { TableNames } from './names';

/**
 * The schema, one step per version. A store is one records table plus its
 * meta and migrations tables. Append only: a released step never changes.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'records (tenant, namespace, text terms, vector, attributes, payload) and meta',
    up: (n) => [
      // id and namespace in the C collation: scan order and cursors compare bytes, as JavaScript sorts ids.
      `CREATE TABLE ${n.records} (
        id text COLLATE "C" PRIMARY KEY,
        tenant text COLLATE "C" NOT NULL,
        namespace text COLLATE "C" NOT NULL,
        text text NOT NULL,
        terms tsvector NOT NULL,
        term_count integer NOT NULL,
        embedding vector,
        attributes jsonb NOT NULL,
        payload json NOT NULL
      )`,
      `CREATE INDEX "${n.table}_scope_idx" ON ${n.records} (tenant, namespace, id)`,
      `CREATE INDEX "${n.table}_terms_idx" ON ${n.records} USING gin (terms)`,
      `CREATE INDEX "${n.table}_attributes_idx" ON ${n.records} USING gin (attributes jsonb_path_ops)`,
      `CREATE TABLE ${n.meta} (key text PRIMARY KEY, value text NOT NULL)`,
    ],
  },
  {
    version: 2,
    description: 'event time (occurred_at) with its own index, and context text in the keyword terms',
    up: (n) => [
      // context: text that helps find a record (neighbouring turns, session date) without being its content.
      // Its terms go into the same tsvector with weight C; content positions keep their weight (A, or D
      // before this version), so rows written before need no rewrite.
      `ALTER TABLE ${n.records} ADD COLUMN context text NOT NULL DEFAULT ''`,
      `ALTER TABLE ${n.records} ADD COLUMN context_term_count integer NOT NULL DEFAULT 0`,
      `ALTER TABLE ${n.records} ADD COLUMN occurred_at timestamptz`,
      // Memories written before event time existed happened when they were created.
      `UPDATE ${n.records} SET attributes = attributes || jsonb_build_object('occurredAt', attributes -> 'createdAt')
        WHERE attributes @> '{"kind":"memory"}' AND NOT attributes ? 'occurredAt'
          AND jsonb_typeof(attributes -> 'createdAt') = 'number'`,
      // The column mirrors the attribute (epoch milliseconds) where it is a whole number in years 1..9999.
      `UPDATE ${n.records} SET occurred_at = to_timestamp(0) + ((attributes ->> 'occurredAt')::numeric * interval '1 millisecond')
        WHERE jsonb_typeof(attributes -> 'occurredAt') = 'number'
          AND (attributes ->> 'occurredAt')::numeric = trunc((attributes ->> 'occurredAt')::numeric)
          AND (attributes ->> 'occurredAt')::numeric BETWEEN ${MIN_OCCURRED_AT_MS} AND ${MAX_OCCURRED_AT_MS}`,
      `CREATE INDEX "${n.table}_occurred_at_idx" ON ${n.records} (tenant, namespace, occurred_at)`,
    ],
  },
  LINKS_MIGRATION,
];

/** The schema version this build writes and reads. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

/** The applied version, or 0 when the store does not exist yet. */
export async function readSchemaVersion(client: PoolClient, n: TableNames): Promise<number> {
  const exists = await client.query<{ t: string | null }>('SELECT to_regclass($1) AS t', [n.migrations]);
  if (exists.rows[0]?.t == null) return 0;
  const row = await client.query<{ v: number | null }>(`SELECT max(version) AS v FROM ${n.migrations}`);
  return row.rows[0]?.v ?? 0;
}

function tooNew(n: TableNames, version: number): AgentMemoryError {
  return new AgentMemoryError(
    'UNSUPPORTED_FORMAT',
    `${n.label} has schema version ${version}, newer than this @agentmem/postgres understands (${SCHEMA_VERSION}). Upgrade @agentmem/postgres; nothing was changed.`,
    { details: { table: n.label, version, supported: SCHEMA_VERSION } },
  );
}

/**
 * Brings the store's tables to SCHEMA_VERSION in one transaction under an
 * advisory lock (so that processes starting together migrate once), or
 * refuses a store written by a newer version. Returns the version found before.
 */
export async function migrate(client: PoolClient, n: TableNames): Promise<number> {
  const current = await readSchemaVersion(client, n);
  if (current > SCHEMA_VERSION) throw tooNew(n, current);
  if (current === SCHEMA_VERSION) return current;
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [n.lockKey]);
    await ensureVectorExtension(client);
    const schema = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [n.schema]);
    if (schema.rowCount === 0) await client.query(`CREATE SCHEMA "${n.schema}"`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${n.migrations} (version integer PRIMARY KEY, description text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const locked = await readSchemaVersion(client, n); // another process may have migrated meanwhile
    if (locked > SCHEMA_VERSION) throw tooNew(n, locked);
    for (const m of MIGRATIONS) {
      if (m.version <= locked) continue;
      for (const sql of m.up(n)) await client.query(sql);
      await client.query(`INSERT INTO ${n.migrations} (version, description) VALUES ($1, $2)`, [
        m.version,
        m.description,
      ]);
    }
    await client.query('COMMIT');
    return current;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
}

async function ensureVectorExtension(client: PoolClient): Promise<void> {
  const found = await client.query("SELECT 1 FROM pg_extension WHERE extname = 'vector'");
  if ((found.rowCount ?? 0) > 0) return;
  await client.query('SAVEPOINT agentmem_extension');
  try {
    await client.query('CREATE EXTENSION IF NOT EXISTS vector');
    await client.query('RELEASE agentmem_extension');
  } catch (error) {
    await client.query('ROLLBACK TO agentmem_extension');
    throw new AgentMemoryError(
      'MISSING_DEPENDENCY',
      `The pgvector extension is not installed in this database and could not be created (${(error as Error).message}). Run CREATE EXTENSION vector; once as a user allowed to (on managed services: enable "vector" in the extensions page).`,
      { cause: error },
    );
  }
}
