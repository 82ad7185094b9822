import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentMemoryError, type BackendRecord } from '@agentmem/core';
import { FakeEmbedder } from '@agentmem/core/testing';
import { createPostgresMemory, type PostgresBackend } from '@agentmem/postgres';
import { createSqliteMemory, sqliteSnapshotFormat } from '@agentmem/sqlite';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { fullState } from '../teleport/helpers';
import { plainRecord, postgresStores, waitForServer } from './helpers';
import { TcpRelay } from './tcp-relay';

const url = () => inject('pgliteUrl');

/**
 * The client talks to PGlite through a relay that the test kills (every
 * connection dropped at once, then connection refused), stalls (a hung
 * server) and restarts on the same port.
 */
describe('Postgres faults: refused, dropped mid-transaction, statement timeout (PGlite behind a killable endpoint)', () => {
  const stores = postgresStores(url);
  let relay: TcpRelay;
  let dir: string;
  beforeAll(async () => {
    await waitForServer(url());
    const upstream = new URL(url());
    relay = await TcpRelay.start(async () => ({ host: upstream.hostname, port: Number(upstream.port) }));
    dir = mkdtempSync(join(tmpdir(), 'agentmem-pg-faults-'));
  }, 180_000);
  afterAll(async () => {
    await relay?.kill();
    await stores.dropAll();
    rmSync(dir, { recursive: true, force: true });
  });

  const viaRelay = (options: Partial<ConstructorParameters<typeof PostgresBackend>[0]> = {}) =>
    stores.backend({ connectionString: relay.url, ...options });

  it('connection refused: a clear error naming the server after the retries; retried reads succeed once it is back', async () => {
    const backend = viaRelay({ retry: { retries: 2, minDelayMs: 5, maxDelayMs: 10 } });
    await backend.init({ dimension: 4 });
    await relay.kill();
    const error = await backend.count({ tenant: null }).catch((e: unknown) => e);
    expect(AgentMemoryError.hasCode(error, 'BACKEND_UNAVAILABLE')).toBe(true);
    expect((error as Error).message).toContain(`127.0.0.1:${relay.port}/postgres`);
    expect((error as Error).message).toMatch(/after 3 attempts/);
    // The server comes back while a call is retrying: the call succeeds.
    const retrying = viaRelay({
      schema: backend.names.schema,
      retry: { retries: 5, minDelayMs: 100, maxDelayMs: 200 },
    });
    const pending = retrying.count({ tenant: null });
    setTimeout(() => void relay.restart(), 150);
    expect(await pending).toBe(0);
    await backend.close();
    await retrying.close();
  });

  it('the server goes away mid-merge: the merge fails with a clear error, the store is as before, and a retry merges', async () => {
    const remote = await createSqliteMemory({ path: join(dir, 'remote.db'), embedder: new FakeEmbedder() });
    await remote.rememberMany(
      Array.from({ length: 700 }, (_, i) => ({ content: `Remote fact number ${i}`, type: 'project' as const })),
    );
    const file = join(dir, 'remote-snapshot.db');
    await remote.snapshot(file);
    await remote.close();

    const schema = stores.schema();
    const local = await createPostgresMemory({
      connectionString: relay.url,
      schema,
      embedder: new FakeEmbedder(),
      snapshotFormat: sqliteSnapshotFormat,
      retry: { retries: 0 },
    });
    await local.remember({ content: 'Local memory kept through the failure', type: 'user', id: 'mem_local' });
    const before = await fullState(local.backend);
    // Kill the endpoint right after the merge's second write reached the server, inside its transaction.
    const backend = local.backend as PostgresBackend;
    const upsert = backend.upsert.bind(backend);
    let writes = 0;
    backend.upsert = async (records: readonly BackendRecord[]) => {
      await upsert(records);
      if (++writes === 2) await relay.kill();
    };
    const error = await local.merge(file).catch((e: unknown) => e);
    expect(AgentMemoryError.hasCode(error, 'BACKEND_UNAVAILABLE')).toBe(true);
    expect((error as Error).message).toMatch(/lost|Cannot reach/);
    backend.upsert = upsert;
    await relay.restart();
    expect(await fullState(local.backend)).toEqual(before);
    expect(await local.listMerges()).toEqual([]);
    const merged = await local.merge(file);
    expect(merged.counts.imported).toBe(700);
    await local.close();
  });

  it('statement timeout: a hung server gives a TIMEOUT error and the write is not half-done', async () => {
    const backend = viaRelay({ statementTimeoutMs: 200, retry: { retries: 0 } });
    await backend.init({ dimension: 4 });
    await backend.upsert([plainRecord('kept')]);
    const error = await backend
      .transaction(async () => {
        await backend.upsert([plainRecord('first')]);
        relay.stall();
        await backend.upsert([plainRecord('second')]);
      })
      .catch((e: unknown) => e);
    relay.stall(false);
    expect(AgentMemoryError.hasCode(error, 'TIMEOUT')).toBe(true);
    expect((error as Error).message).toContain('statementTimeoutMs');
    const fresh = viaRelay({ schema: backend.names.schema });
    expect((await fresh.scan({ filter: { tenant: null } })).records.map((r) => r.id)).toEqual(['kept']);
    await fresh.close();
    await backend.close();
  });
});
