import { AgentMemoryError, type BackendRecord, HashingEmbedder } from '@agentmem/core';
import { createPostgresMemory, PostgresBackend } from '@agentmem/postgres';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { plainRecord, postgresStores, waitForServer } from '../helpers';
import { describeServer } from './server-env';

describeServer('The connection pool under load, timeouts and shutdown', (url) => {
  const stores = postgresStores(url);
  let admin: pg.Client;
  beforeAll(async () => {
    await waitForServer(url());
    admin = new pg.Client({ connectionString: url() });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.end();
    await stores.dropAll();
  });

  /** A connection string whose sessions the server lists under this name. */
  const named = (name: string) => `${url()}${url().includes('?') ? '&' : '?'}application_name=${name}`;
  const sessions = async (name: string) =>
    Number(
      (await admin.query('SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = $1', [name])).rows[0].n,
    );
  /** Until the server has let the sessions go (a backend process exits just after its client hangs up). */
  const sessionsGone = async (name: string) => {
    for (let i = 0; i < 200 && (await sessions(name)) > 0; i++) await new Promise((r) => setTimeout(r, 25));
    return sessions(name);
  };

  const facts = Array.from({ length: 60 }, (_, i) => ({
    content: `Fact ${i}: the ${['deploy', 'staging', 'billing', 'search'][i % 4]} service runs on host ${i}`,
    type: 'project' as const,
  }));

  it('80 recalls at once on a pool of 3: every one answers right, never more than 3 sessions, close() ends them all', async () => {
    const name = `agentmem_pool_${process.pid}`;
    const memory = await createPostgresMemory({
      connectionString: named(name),
      schema: stores.schema(),
      embedder: new HashingEmbedder({ dimension: 64 }),
      maxConnections: 3,
    });
    await memory.rememberMany(facts);
    let most = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        most = Math.max(most, await sessions(name));
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
    const results = await Promise.all(
      Array.from({ length: 80 }, (_, i) => memory.recall(`host ${i % 60} service`, { k: 3 })),
    );
    sampling = false;
    await sampler;
    for (const [i, hits] of results.entries()) {
      expect(hits.map((h) => h.memory.content)).toContain(facts[i % 60]!.content);
    }
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThanOrEqual(3);
    await memory.close();
    expect(await sessionsGone(name)).toBe(0);
  });

  it('a transaction holding a connection of a pool of 2 does not stall 30 concurrent reads outside it, which do not see it', async () => {
    const backend = stores.backend({ maxConnections: 2 });
    await backend.init({ dimension: 4 });
    await backend.upsert([plainRecord('a'), plainRecord('b')]);
    let entered!: () => void;
    let release!: () => void;
    const inside = new Promise<void>((r) => (entered = r));
    const held = new Promise<void>((r) => (release = r));
    const tx = backend.transaction(async () => {
      await backend.upsert([plainRecord('inside')]);
      entered();
      await held; // the transaction keeps its connection until the reads outside are done
      return backend.count({ tenant: null });
    });
    await inside;
    // Not in the transaction's async context: these share the pool's other connection.
    const outside = await Promise.all(Array.from({ length: 30 }, () => backend.count({ tenant: null })));
    release();
    expect(await tx).toBe(3);
    expect(outside).toEqual(Array(30).fill(2));
    expect(await backend.count({ tenant: null })).toBe(3);
    await backend.close();
  });

  it('a pool of one connection runs a transaction with nested calls, savepoints and reads in it without waiting on itself', async () => {
    const backend = stores.backend({ maxConnections: 1 });
    await backend.init({ dimension: 4 });
    const seen = await backend.transaction(async () => {
      await Promise.all([backend.upsert([plainRecord('x')]), backend.upsert([plainRecord('y')]), backend.count({ tenant: null })]);
      await backend
        .transaction(async () => {
          await backend.upsert([plainRecord('rolled-back')]);
          throw new Error('undo this part');
        })
        .catch(() => {});
      return (await backend.scan({ filter: { tenant: null } })).records.map((r) => r.id);
    });
    expect(seen).toEqual(['x', 'y']);
    expect(await backend.count({ tenant: null })).toBe(2);
    await backend.close();
  });

  it('close() while recalls are in flight: each finishes or fails with CLOSED, later calls fail with CLOSED, no session is left', async () => {
    const name = `agentmem_close_${process.pid}`;
    const memory = await createPostgresMemory({
      connectionString: named(name),
      schema: stores.schema(),
      embedder: new HashingEmbedder({ dimension: 64 }),
      maxConnections: 2,
    });
    await memory.rememberMany(facts);
    const inFlight = Array.from({ length: 20 }, (_, i) =>
      memory.recall(`host ${i} service`, { k: 2 }).then(
        () => 'answered',
        (e: unknown) => (AgentMemoryError.isInstance(e) ? e.code : String(e)),
      ),
    );
    await memory.close();
    const outcomes = new Set(await Promise.all(inFlight));
    for (const o of outcomes) expect(['answered', 'CLOSED']).toContain(o);
    const after = await memory.recall('deploy').catch((e: unknown) => e);
    expect(AgentMemoryError.hasCode(after, 'CLOSED')).toBe(true);
    expect(await sessionsGone(name)).toBe(0);
  });

  it('a pool you pass in stays yours: close() leaves it open, and the backend uses no connection of its own', async () => {
    const name = `agentmem_own_${process.pid}`;
    const pool = new pg.Pool({ connectionString: named(name), max: 2 });
    try {
      const backend = new PostgresBackend({ pool, schema: stores.schema() });
      await backend.init({ dimension: 4 });
      await backend.upsert([{ id: 'a', namespace: 'n', tenant: '', text: 'a', attributes: {}, payload: {} }]);
      await backend.close();
      expect((await pool.query('SELECT 1 AS one')).rows[0].one).toBe(1);
      expect(await sessions(name)).toBeLessThanOrEqual(2);
    } finally {
      await pool.end();
    }
    expect(await sessionsGone(name)).toBe(0);
  });

  it('statementTimeoutMs: a write stuck behind a lock fails with TIMEOUT after the server-side timeout and changes nothing', async () => {
    const backend = stores.backend({ statementTimeoutMs: 300, retry: { retries: 0 } });
    await backend.init({ dimension: 4 });
    const rec = (id: string, text: string): BackendRecord => ({
      id,
      namespace: 'n',
      tenant: '',
      text,
      attributes: {},
      payload: {},
    });
    await backend.upsert([rec('locked', 'before')]);
    const holder = new pg.Client({ connectionString: url() });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query(`SELECT id FROM ${backend.names.records} WHERE id = 'locked' FOR UPDATE`);
      const error = await backend.upsert([rec('free', 'new'), rec('locked', 'after')]).catch((e: unknown) => e);
      expect(AgentMemoryError.hasCode(error, 'TIMEOUT')).toBe(true);
      expect((error as Error).message).toContain('statementTimeoutMs');
      await holder.query('ROLLBACK');
    } finally {
      await holder.end();
    }
    const rows = await backend.scan({ filter: { tenant: null } });
    expect(rows.records.map((r) => [r.id, r.text])).toEqual([['locked', 'before']]);
    // The pool recovered: the same write goes through now.
    await backend.upsert([rec('free', 'new'), rec('locked', 'after')]);
    expect(await backend.count({ tenant: null })).toBe(2);
    await backend.close();
  });
});
