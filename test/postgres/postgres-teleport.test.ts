import { FakeEmbedder } from '@agentmem/core/testing';
import { createPostgresMemory } from '@agentmem/postgres';
import { sqliteSnapshotFormat } from '@agentmem/sqlite';
import { afterAll, beforeAll, describe, inject } from 'vitest';
import { teleportCases } from '../teleport/backend-teleport';
import { postgresStores, waitForServer } from './helpers';

const url = () => inject('pgliteUrl');

describe('Teleport with a Postgres store (PGlite): snapshot to the portable file, merge back, undo', () => {
  const stores = postgresStores(url);
  beforeAll(() => waitForServer(url()), 180_000);
  afterAll(() => stores.dropAll());
  teleportCases('postgres', (options) =>
    createPostgresMemory({
      connectionString: url(),
      schema: stores.schema(),
      embedder: new FakeEmbedder(),
      snapshotFormat: sqliteSnapshotFormat,
      ...options,
    }),
  );
});
