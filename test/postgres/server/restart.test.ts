import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentMemoryError, type BackendRecord, HashingEmbedder } from '@agentmem/core';
import { createPostgresMemory, type PostgresBackend } from '@agentmem/postgres';
import { createSqliteMemory, sqliteSnapshotFormat } from '@agentmem/sqlite';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { fullState } from '../../teleport/helpers';
import { plainRecord, postgresStores, waitForServer } from '../helpers';
import { describeCrashServer } from './server-env';

/**
 * The server stopped hard (pg_ctl stop -m immediate: no checkpoint, every session cut, like a crash) and
 * started again on the same port (crash recovery replays the WAL), while a client is working. These tests
 * crash their own server (AGENTMEM_PG_CRASH_URL), never the one the other files use.
 */
describeCrashServer('The server crashes and comes back', (server) => {
  const stores = postgresStores(server.url);
  let dir: string;
  beforeAll(async () => {
    await waitForServer(server.url());
    dir = mkdtempSync(join(tmpdir(), 'agentmem-pg-restart-'));
  });
  afterAll(async () => {
    await stores.dropAll();
    rmSync(dir, { recursive: true, force: true });
  });
  // A test that failed while the server was down must not fail the ones after it.
  afterEach(async () => {
    if (server.isDown()) await server.up();
  });
  const embedder = () => new HashingEmbedder({ dimension: 32 });
  const codeOf = (e: unknown) => (AgentMemoryError.isInstance(e) ? e.code : `not an AgentMemoryError: ${String(e)}`);

  it('a write loop across a crash: BACKEND_UNAVAILABLE while down, writes again by itself once back, no acknowledged write lost, none half-applied', async () => {
    const memory = await createPostgresMemory({
      connectionString: server.url(),
      schema: stores.schema(),
      embedder: embedder(),
      retry: { retries: 2, minDelayMs: 20, maxDelayMs: 80 },
    });
    // Each write is three memories (with entities, so links rows too): all three or none.
    const contents = (i: number) =>
      [0, 1, 2].map((j) => `Write ${i} part ${j}: Alice Meyer moved the Berlin deploy to Friday`);
    const acked: number[] = [];
    const failed: { i: number; code: string }[] = [];
    let phase: 'before' | 'down' | 'after' = 'before';
    let crash: Promise<void> | undefined;
    for (let i = 0; i < 2000 && !(phase === 'after' && acked.filter((a) => a > failed.at(-1)!.i).length >= 10); i++) {
      if (phase === 'before' && acked.length === 10) crash = server.down(); // the loop goes on while it stops
      try {
        await memory.rememberMany(contents(i).map((content) => ({ content, type: 'project' as const })));
        acked.push(i);
      } catch (error) {
        failed.push({ i, code: codeOf(error) });
        if (phase === 'before') phase = 'down';
        // A few failures seen: bring it back without waiting, the loop keeps writing meanwhile.
        if (phase === 'down' && failed.length === 3) {
          await crash;
          phase = 'after';
          void server.up();
        }
      }
    }
    expect(failed.length).toBeGreaterThanOrEqual(3);
    expect(new Set(failed.map((f) => f.code))).toEqual(new Set(['BACKEND_UNAVAILABLE']));
    expect(acked.filter((a) => a > failed.at(-1)!.i).length).toBeGreaterThanOrEqual(10);

    const present = new Map<string, number>();
    const linkSets = new Set<string>();
    let cursor: string | undefined;
    do {
      const page = await memory.backend.scan({ filter: { tenant: null, where: { kind: 'memory' } }, cursor });
      for (const r of page.records) {
        const content = (r.payload as { content: string }).content;
        present.set(content, (present.get(content) ?? 0) + 1);
        linkSets.add(JSON.stringify([...(r.links ?? [])].sort()));
      }
      cursor = page.cursor;
    } while (cursor);
    for (const i of acked) for (const c of contents(i)) expect(present.get(c), c).toBe(1);
    for (const { i } of failed) {
      // A write cut off at its commit may have been applied: then wholly (the error says to check).
      expect([0, 3], `write ${i}`).toContain(contents(i).filter((c) => present.has(c)).length);
      for (const c of contents(i)) expect(present.get(c) ?? 1).toBe(1);
    }
    // Every memory there has its entity links (written in the same transaction), and each key counts exactly them.
    expect(linkSets.size).toBe(1);
    const keys = JSON.parse([...linkSets][0]!) as string[];
    expect(keys.length).toBeGreaterThan(0);
    const total = [...present.values()].reduce((x, y) => x + y, 0);
    for (const key of await memory.backend.linked!({ keys, tenant: null, limit: 0 })) expect(key.count).toBe(total);
    await memory.close();
  });

  it('reads while it is down say BACKEND_UNAVAILABLE and name the server; the same store answers again once it is back', async () => {
    const memory = await createPostgresMemory({
      connectionString: server.url(),
      schema: stores.schema(),
      embedder: embedder(),
      retry: { retries: 1, minDelayMs: 20, maxDelayMs: 40 },
    });
    await memory.remember({ content: 'The staging database is PostgreSQL 16', type: 'project' });
    await server.down();
    const error = await memory.recall('staging database').catch((e: unknown) => e);
    expect(codeOf(error)).toBe('BACKEND_UNAVAILABLE');
    expect((error as Error).message).toContain(new URL(server.url()).port);
    await server.up();
    const hits = await memory.recall('staging database');
    expect(hits[0]?.memory.content).toBe('The staging database is PostgreSQL 16');
    await memory.close();
  });

  it('a crash inside a transaction: the committed write before it survives, nothing of the open transaction does', async () => {
    const backend = stores.backend({ connectionString: server.url(), retry: { retries: 0 } }) as PostgresBackend;
    await backend.init({ dimension: 4 });
    await backend.upsert([plainRecord('committed')]);
    const error = await backend
      .transaction(async () => {
        await backend.upsert([plainRecord('open-1')]);
        await server.down();
        await backend.upsert([plainRecord('open-2')]);
      })
      .catch((e: unknown) => e);
    expect(codeOf(error)).toBe('BACKEND_UNAVAILABLE');
    await server.up();
    const after = stores.backend({ connectionString: server.url(), schema: backend.names.schema });
    expect((await after.scan({ filter: { tenant: null } })).records.map((r) => r.id)).toEqual(['committed']);
    // The backend that saw the crash works again without being reopened.
    await backend.upsert([plainRecord('later')]);
    expect(await backend.count({ tenant: null })).toBe(2);
    await after.close();
    await backend.close();
  });

  it('a crash in the middle of a merge: BACKEND_UNAVAILABLE, the store as before once back, and the merge then goes through', async () => {
    const remote = await createSqliteMemory({ path: join(dir, 'remote.db'), embedder: embedder() });
    await remote.rememberMany(
      Array.from({ length: 700 }, (_, i) => ({
        content: `Remote fact ${i} about Alice Meyer`,
        type: 'project' as const,
      })),
    );
    const file = join(dir, 'remote-snapshot.db');
    await remote.snapshot(file);
    await remote.close();
    const local = await createPostgresMemory({
      connectionString: server.url(),
      schema: stores.schema(),
      embedder: embedder(),
      snapshotFormat: sqliteSnapshotFormat,
      retry: { retries: 1, minDelayMs: 20, maxDelayMs: 40 },
    });
    await local.remember({ content: 'Local memory kept through the crash', type: 'user', id: 'mem_local' });
    const before = await fullState(local.backend);
    // Crash right after the merge's second write reached the server, inside its transaction.
    const backend = local.backend as PostgresBackend;
    const upsert = backend.upsert.bind(backend);
    let writes = 0;
    backend.upsert = async (records: readonly BackendRecord[]) => {
      await upsert(records);
      if (++writes === 2) await server.down();
    };
    const error = await local.merge(file).catch((e: unknown) => e);
    backend.upsert = upsert;
    expect(writes).toBeGreaterThanOrEqual(2);
    expect(codeOf(error)).toBe('BACKEND_UNAVAILABLE');
    await server.up();
    expect(await fullState(local.backend)).toEqual(before);
    expect(await local.listMerges()).toEqual([]);
    const merged = await local.merge(file);
    expect(merged.counts.imported).toBe(700);
    expect(await local.backend.count({ tenant: null, where: { kind: 'memory' } })).toBe(701);
    await local.close();
  });
});
