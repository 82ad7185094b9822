import { runBackendConformance } from '@agentmem/core/testing';
import { PostgresBackend } from '@agentmem/postgres';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { postgresStores, waitForServer } from './helpers';

/** Everything a Postgres server must pass: the conformance suite and this backend's own behaviour. */
export function postgresSuite(url: () => string, label: string): void {
  const stores = postgresStores(url);
  beforeAll(() => waitForServer(url()), 180_000);
  afterAll(() => stores.dropAll());

  runBackendConformance(
    {
      name: `PostgresBackend (${label})`,
      create: async () => stores.backend(),
      reopen: async (backend) => {
        await backend.close();
        const { schema, table } = (backend as PostgresBackend).names;
        return new PostgresBackend({ connectionString: url(), schema, table, maxConnections: 4 });
      },
      capabilities: { nativeHybrid: false, textSearch: true, transactions: true, persistent: true, snapshot: false },
    },
    { describe, it },
  );
}
