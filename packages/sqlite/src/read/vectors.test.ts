import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentMemory, type MemoryBackend } from '@agentmem/core';
import { seededRandom } from '@agentmem/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteBackend } from '../backend';

const HOUR = 3_600_000;
const T0 = Date.parse('2026-01-01T00:00:00Z');
const WORDS = ['kafka', 'broker', 'deploy', 'staging', 'cluster', 'latency', 'budget', 'review', 'schema', 'backup'];

/** The same backend without its `vectors` method: core then reads the records whole (`get` with vectors). */
function withoutVectors(backend: SqliteBackend): MemoryBackend {
  return new Proxy(backend, {
    get(target, key) {
      if (key === 'vectors') return undefined;
      const value = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

describe('vectors: the keyword candidates recall scores with a lexical embedder', () => {
  let dir: string;
  let backend: SqliteBackend;
  const clock = { now: T0 };
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'agentmem-vectors-'));
    backend = new SqliteBackend({ path: join(dir, 'memory.db') });
    clock.now = T0;
    const random = seededRandom(11);
    // 400 memories of a 10-word vocabulary (each query's keyword pool of 50 is full), a quarter in
    // another tenant; one in seven of low importance and a year older than the rest.
    const inputs = Array.from({ length: 400 }, (_, i) => ({
      content: `note ${i}: ${Array.from({ length: 6 }, () => WORDS[Math.floor(random() * WORDS.length)]).join(' ')}`,
      type: 'project' as const,
      importance: i % 7 === 0 ? 0.05 : 0.3 + random() * 0.7,
    }));
    const old = (i: number) => i % 7 === 0;
    for (const [tenant, part] of [
      ['', inputs.slice(0, 300)],
      ['acme', inputs.slice(300)],
    ] as const) {
      const memory = new AgentMemory({ backend, now: () => clock.now, tenant });
      clock.now = T0;
      await memory.rememberMany(part.filter((_, i) => old(i)));
      clock.now = T0 + 364 * 24 * HOUR;
      await memory.rememberMany(part.filter((_, i) => !old(i)));
    }
    // A day later decay prunes the old ones: changes pending in the log, which reads merge in.
    clock.now = T0 + 365 * 24 * HOUR;
    expect((await new AgentMemory({ backend, now: () => clock.now }).applyDecay()).pruned).toBeGreaterThan(50);
  });
  afterEach(async () => {
    await backend.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("gives get's vectors by id while a change is pending, for a tenant and for all", async () => {
    expect((backend.database.prepare('SELECT count(*) FROM logged_changes').pluck().get() as number) > 0).toBe(true);
    const ids = (await backend.scan({ filter: { tenant: null }, limit: 10_000 })).records.map((r) => r.id);
    expect(ids.length).toBeGreaterThan(400); // memories, and their history
    for (const tenant of [null, '', 'acme']) {
      const records = await backend.get(ids, { tenant, withVectors: true });
      const want = new Map(records.flatMap((r) => (r.vector ? [[r.id, r.vector]] : [])));
      expect(want.size).toBe(tenant === null ? 400 : tenant === '' ? 300 : 100);
      expect(await backend.vectors(ids, { tenant })).toEqual(want);
    }
  });

  it('recall ranks as it does from whole records: the same memories, order, scores and signals', async () => {
    let calls = 0;
    const counted = new Proxy(backend, {
      get(target, key) {
        const value = Reflect.get(target, key, target);
        if (key === 'vectors') calls++;
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    for (const tenant of ['', 'acme']) {
      const a = new AgentMemory({ backend: counted, now: () => clock.now, tenant });
      const b = new AgentMemory({ backend: withoutVectors(backend), now: () => clock.now, tenant });
      for (let q = 0; q < WORDS.length; q++) {
        const query = `${WORDS[q]} ${WORDS[(q * 3 + 1) % WORDS.length]}`;
        for (const k of [1, 10, 60]) {
          const options = { k, reinforce: false, includePruned: q % 2 === 0 };
          const got = await a.recall(query, options);
          if (k === 1 || tenant === '') expect(got.length).toBe(k);
          expect(got.some((r) => r.signals.dense !== undefined)).toBe(true);
          expect(got).toEqual(await b.recall(query, options));
        }
      }
    }
    expect(calls).toBeGreaterThan(0);
  });
});
