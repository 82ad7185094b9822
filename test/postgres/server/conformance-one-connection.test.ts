import { runBackendConformance } from '@agentmem/core/testing';
import { PostgresBackend } from '@agentmem/postgres';
import pg from 'pg';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { postgresStores, waitForServer } from '../helpers';
import { describeServer } from './server-env';

/**
 * The conformance suite again, on a pool you own with ONE connection: every operation, transactions and
 * their nested calls included, must finish without waiting for a second connection (a backend that took
 * one more inside a transaction would hang here), and close() must leave your pool open.
 */
describeServer('PostgresBackend on a pool of one connection that the caller owns', (url) => {
  const stores = postgresStores(url);
  let pool: pg.Pool;
  beforeAll(async () => {
    await waitForServer(url());
    pool = new pg.Pool({ connectionString: url(), max: 1 });
  });
  afterAll(async () => {
    await pool.end();
    await stores.dropAll();
  });

  runBackendConformance(
    {
      name: 'PostgresBackend (real server, a pool of one)',
      create: async () => new PostgresBackend({ pool, schema: stores.schema() }),
      reopen: async (backend) => {
        await backend.close();
        const { schema, table } = (backend as PostgresBackend).names;
        return new PostgresBackend({ pool, schema, table });
      },
      capabilities: {
        nativeHybrid: false,
        textSearch: true,
        transactions: true,
        persistent: true,
        snapshot: false,
        readonly: false,
        links: true,
      },
    },
    { describe, it },
  );
});
