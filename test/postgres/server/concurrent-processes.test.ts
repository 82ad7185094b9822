import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HashingEmbedder } from '@agentmem/core';
import { createPostgresMemory } from '@agentmem/postgres';
import { createSqliteMemory, sqliteSnapshotFormat } from '@agentmem/sqlite';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { postgresStores, waitForServer } from '../helpers';
import { describeServer } from './server-env';
import { runTogether } from './workers';

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

  it(`${WRITERS} writers writing and recalling while decay passes and a merge run (in the test's process): every acknowledged write is there exactly once, no process sees an error`, async () => {
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
    // Every session of this test under one name, to know when all of them are gone.
    const name = `agentmem_procs_${process.pid}`;
    const named = `${url()}${url().includes('?') ? '&' : '?'}application_name=${name}`;
    const admin = new pg.Client({ connectionString: url() });
    await admin.connect();
    const deadlocks = async () => {
      await admin.query('SELECT pg_stat_clear_snapshot()');
      const r = await admin.query('SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()');
      return Number(r.rows[0].deadlocks);
    };
    const deadlocksBefore = await deadlocks();
    const memory = await createPostgresMemory({
      connectionString: named,
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

    const job = { url: named, schema };
    // The writers in their processes; decay passes and the merge here, each on its own pool, at the same time.
    const maintenance = await createPostgresMemory({
      connectionString: named,
      schema,
      embedder: embedder(),
      snapshotFormat: sqliteSnapshotFormat,
    });
    const { runs, alongside } = await runTogether(
      Array.from({ length: WRITERS }, (_, w) => ({ ...job, role: 'writer', worker: w, writes: WRITES })),
      async () => {
        const decay = (async () => {
          const pruned: number[] = [];
          // A year ahead: the seeds (and later the writers' memories) fall below the prune threshold.
          for (let r = 0; r < 4; r++)
            pruned.push((await memory.applyDecay({ now: Date.now() + 365 * 86_400_000 })).pruned);
          return pruned;
        })();
        const [pruned, merged] = await Promise.all([decay, maintenance.merge(file)]);
        return { pruned, imported: merged.counts.imported };
      },
    );
    for (const [i, run] of runs.entries()) {
      expect(
        run.lines.filter((l) => 'error' in l),
        `writer ${i}: ${run.stderr}`,
      ).toEqual([]);
      expect(run.code, run.stderr).toBe(0);
    }
    expect(alongside.imported).toBe(REMOTE);
    expect(alongside.pruned[0]).toBeGreaterThan(0);
    await maintenance.close();

    const acked = runs
      .slice(0, WRITERS)
      .flatMap((run) => run.lines.flatMap((l) => (l.ack as { id: string; content: string }[] | undefined) ?? []));
    expect(acked).toHaveLength(WRITERS * (WRITES * 4 + WRITES + WRITES / 2));
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
    // No deadlock at all, not even one the backend retried unseen: overlapping writes lock rows in one order.
    // A session reports its counts as it exits: wait until every session of the test is gone.
    for (let i = 0; i < 200; i++) {
      const left = await admin.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1', [
        name,
      ]);
      if (left.rows[0].n === 0) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    await new Promise((r) => setTimeout(r, 200)); // its last stats flush follows its exit from pg_stat_activity
    expect(await deadlocks()).toBe(deadlocksBefore);
    await admin.end();
  }, 180_000);
});
