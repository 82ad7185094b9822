import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HashingEmbedder } from '@agentmem/core';
import { createPostgresMemory } from '@agentmem/postgres';
import { createSqliteMemory, sqliteSnapshotFormat } from '@agentmem/sqlite';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { postgresStores, waitForServer } from '../helpers';
import { describeServer } from './server-env';
import { runTogether, type WorkerRun } from './workers';

const WRITERS = 4;
const WRITES = 16;
const REMOTE = 200;

describeServer('Many processes on one Postgres store at once', (url) => {
  const stores = postgresStores(url);
  let dir: string;
  beforeAll(async () => {
    await waitForServer(url());
    dir = mkdtempSync(join(tmpdir(), 'agentmem-pg-procs-'));
  });
  afterAll(async () => {
    await stores.dropAll();
    rmSync(dir, { recursive: true, force: true });
  });

  it(`${WRITERS} writers writing and recalling while decay passes and a merge run: every acknowledged write is there exactly once, no process sees an error`, async () => {
    const embedder = () => new HashingEmbedder({ dimension: 32 });
    // A snapshot of another store to merge in while the writers write.
    const remote = await createSqliteMemory({ path: join(dir, 'remote.db'), embedder: embedder() });
    await remote.rememberMany(
      Array.from({ length: REMOTE }, (_, i) => ({
        content: `Remote decision ${i}: review the staging database`,
        type: 'project' as const,
      })),
    );
    const file = join(dir, 'remote-snapshot.db');
    await remote.snapshot(file);
    await remote.close();

    const schema = stores.schema();
    const memory = await createPostgresMemory({
      connectionString: url(),
      schema,
      embedder: embedder(),
      snapshotFormat: sqliteSnapshotFormat,
    });
    // Memories old enough for decay to prune: the decay passes write while the writers do.
    await memory.rememberMany(
      Array.from({ length: 100 }, (_, i) => ({
        content: `Seed note ${i} about the deploy checklist`,
        type: 'project' as const,
        importance: 0.1,
      })),
    );

    const job = { url: url(), schema };
    const runs = await runTogether([
      ...Array.from({ length: WRITERS }, (_, w) => ({ ...job, role: 'writer', worker: w, writes: WRITES })),
      { ...job, role: 'decay', rounds: 4 },
      { ...job, role: 'merge', file },
    ]);
    const failures = (run: WorkerRun) => run.lines.filter((l) => 'error' in l);
    for (const [i, run] of runs.entries()) {
      expect(failures(run), `${['writer', 'writer', 'writer', 'writer', 'decay', 'merge'][i]}: ${run.stderr}`).toEqual(
        [],
      );
      expect(run.code, run.stderr).toBe(0);
    }
    const merged = runs.at(-1)!.lines.find((l) => 'merged' in l);
    expect(merged?.merged).toBe(REMOTE);
    const decayPasses = runs.at(-2)!.lines.filter((l) => 'decay' in l);
    expect(decayPasses).toHaveLength(4);

    const acked = runs
      .slice(0, WRITERS)
      .flatMap((run) => run.lines.flatMap((l) => (l.ack as { id: string; content: string }[] | undefined) ?? []));
    expect(acked).toHaveLength(WRITERS * (WRITES * 2 + WRITES + WRITES / 2));
    // Exactly once: one record per acknowledged content (and per remote memory), nothing else added.
    const byContent = new Map<string, string[]>();
    let cursor: string | undefined;
    do {
      const page = await memory.backend.scan({
        filter: { tenant: null, where: { kind: 'memory' } },
        cursor,
        limit: 1000,
      });
      for (const r of page.records) {
        const content = (r.payload as { content: string }).content;
        byContent.set(content, [...(byContent.get(content) ?? []), r.id]);
      }
      cursor = page.cursor;
    } while (cursor);
    for (const a of acked) expect(byContent.get(a.content), a.content).toEqual([a.id]); // shared ones: every writer got the one record
    for (let i = 0; i < REMOTE; i++)
      expect(byContent.get(`Remote decision ${i}: review the staging database`)).toHaveLength(1);
    expect([...byContent.values()].flat()).toHaveLength(100 + new Set(acked.map((a) => a.id)).size + REMOTE);
    await memory.close();
  }, 180_000);
});
