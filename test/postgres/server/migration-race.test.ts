import { MIGRATIONS, tableNames } from '@agentmem/postgres';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { postgresStores, waitForServer } from '../helpers';
import { describeServer } from './server-env';
import { startWorker } from './workers';

describeServer('Two processes migrating the same table at once', (url) => {
  const stores = postgresStores(url);
  beforeAll(() => waitForServer(url()));
  afterAll(() => stores.dropAll());

  /** Both processes connected, then sent off at once; resolves with their runs. */
  async function race(schema: string, whileWaiting?: (finished: () => boolean) => Promise<void>) {
    const workers = [0, 1].map(() => startWorker({ role: 'migrate', url: url(), schema }));
    await Promise.all(workers.map((w) => w.ready));
    let exited = 0;
    for (const w of workers) void w.done.then(() => exited++);
    for (const w of workers) w.go();
    await whileWaiting?.(() => exited === workers.length);
    return Promise.all(workers.map((w) => w.done));
  }

  async function migrationsOf(client: pg.Client, schema: string) {
    const n = tableNames(schema);
    return (await client.query(`SELECT version FROM ${n.migrations} ORDER BY version`)).rows.map((r) => r.version);
  }

  it('one migrates while the other waits on the lock, then finds it done: each step applied once, both write', async () => {
    const schema = stores.schema();
    const n = tableNames(schema);
    const client = new pg.Client({ connectionString: url() });
    await client.connect();
    try {
      // Hold the store's migration lock, so that both processes are inside their migration when it opens.
      await client.query('SELECT pg_advisory_lock(hashtext($1))', [n.lockKey]);
      let bothWaited = false;
      const runs = await race(schema, async (finished) => {
        // Both wait on the advisory lock (not on each other's half-created tables), until they are gone.
        while (!finished()) {
          const waiting = await client.query(
            "SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND pid <> pg_backend_pid()",
          );
          if (waiting.rows[0].n >= 2) {
            bothWaited = true;
            break;
          }
          await new Promise((r) => setTimeout(r, 20));
        }
        await client.query('SELECT pg_advisory_unlock(hashtext($1))', [n.lockKey]);
      });
      expect(bothWaited).toBe(true);
      for (const run of runs)
        expect(
          run.lines.filter((l) => 'error' in l),
          run.stderr,
        ).toEqual([]);
      expect(runs.map((r) => r.code)).toEqual([0, 0]);
      expect(await migrationsOf(client, schema)).toEqual(MIGRATIONS.map((m) => m.version));
      const rows = await client.query(`SELECT count(*)::int AS n FROM ${n.records}`);
      expect(rows.rows[0].n).toBe(2);
    } finally {
      await client.end();
    }
  });

  it('started together without any help, both succeed on one set of tables', async () => {
    for (let round = 0; round < 1; round++) {
      const schema = stores.schema();
      const runs = await race(schema);
      for (const run of runs)
        expect(
          run.lines.filter((l) => 'error' in l),
          run.stderr,
        ).toEqual([]);
      const client = new pg.Client({ connectionString: url() });
      await client.connect();
      try {
        expect(await migrationsOf(client, schema)).toEqual(MIGRATIONS.map((m) => m.version));
        const dimension = await client.query(
          "SELECT atttypmod FROM pg_attribute WHERE attrelid = to_regclass($1) AND attname = 'embedding'",
          [tableNames(schema).records],
        );
        expect(dimension.rows[0].atttypmod).toBe(8);
      } finally {
        await client.end();
      }
    }
  });
});
