import type { BackendRecord } from '@agentmem/core';
import { unitVector } from '@agentmem/core/testing';
import { PostgresBackend, type PostgresBackendOptions } from '@agentmem/postgres';
import pg from 'pg';

let counter = 0;
const run = `${process.pid.toString(36)}${Date.now().toString(36).slice(-4)}`;

/**
 * Fresh stores on one Postgres server: each gets its own schema (so tests and
 * parallel test files never see each other's tables); `dropAll` removes them.
 */
export function postgresStores(url: () => string) {
  const schemas = new Set<string>();
  return {
    schema(): string {
      const name = `agentmem_t_${run}_${++counter}`;
      schemas.add(name);
      return name;
    },
    backend(options: Partial<PostgresBackendOptions> = {}): PostgresBackend {
      return new PostgresBackend({
        connectionString: url(),
        schema: this.schema(),
        maxConnections: 4,
        retry: { retries: 2, minDelayMs: 5, maxDelayMs: 20 },
        ...options,
      });
    },
    async dropAll(): Promise<void> {
      if (schemas.size === 0) return;
      const client = new pg.Client({ connectionString: url() });
      await client.connect();
      try {
        for (const s of schemas) await client.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`);
      } finally {
        await client.end();
      }
      schemas.clear();
    },
  };
}

/** Waits until the server answers (PGlite takes seconds of CPU to start on its first connection). */
export async function waitForServer(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('SELECT 1');
  } finally {
    await client.end();
  }
}

/** A unit vector: `unit(dim, 1, 0.5)`. */
export const unit = unitVector;

/** A bare backend record in namespace `n` of the default tenant, its text the id: for tests of the backend's own plumbing. */
export function plainRecord(id: string): BackendRecord {
  return { id, namespace: 'n', tenant: '', text: id, attributes: {}, payload: {} };
}
