import type { BackendRecord } from '@agentmem/core';
import type { PostgresBackend } from '@agentmem/postgres';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { postgresStores, waitForServer } from '../helpers';
import { describeServer } from './server-env';

const record = (id: string, text: string): BackendRecord => ({
  id,
  tenant: 't',
  namespace: 'n',
  text,
  attributes: { kind: 'memory' },
  payload: {},
});

describeServer('Writers of the same rows lock them in one order', (url) => {
  const stores = postgresStores(url);
  beforeAll(async () => waitForServer(url()));
  afterAll(async () => stores.dropAll());

  it('an upsert and a delete of the same rows inside transactions never deadlock, whatever the rows physical order', async () => {
    const schema = stores.schema();
    const options = { connectionString: url(), schema, retry: { retries: 0 } };
    const writer = stores.backend(options) as PostgresBackend;
    const deleter = stores.backend(options) as PostgresBackend;
    await writer.init({ dimension: 4 });
    await deleter.init({ dimension: 4 });
    // Inserted b then a: a sequential scan meets them in that order, the reverse of id order.
    await writer.upsert([record('b', 'bee')]);
    await writer.upsert([record('a', 'ay')]);
    // A third session holds row a, so both writers queue up behind it with what they locked so far.
    const holder = new pg.Client({ connectionString: url() });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query(`SELECT 1 FROM "${schema}".agentmem_records WHERE id = 'a' FOR UPDATE`);
      // Each writer is let go only once the server shows it waiting on a row lock: the upsert holding
      // b and waiting for a, then the delete, so both hold what they took before the holder commits.
      const waiting = async (n: number) => {
        for (let i = 0; i < 400; i++) {
          const { rows } = await holder.query('SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted');
          if (rows[0].n >= n) return;
          await new Promise((r) => setTimeout(r, 25));
        }
        throw new Error(`fewer than ${n} sessions ever waited on a lock`);
      };
      const upsert = writer.transaction(() => writer.upsert([record('b', 'bee 2'), record('a', 'ay 2')]));
      await waiting(1);
      const deletion = deleter.transaction(() => deleter.delete(['a', 'b']));
      await waiting(2);
      await holder.query('COMMIT');
      const outcomes = await Promise.allSettled([upsert, deletion]);
      expect(outcomes.map((o) => (o.status === 'rejected' ? String(o.reason) : 'ok'))).toEqual(['ok', 'ok']);
    } finally {
      await holder.end();
      await writer.close();
      await deleter.close();
    }
  });
});
