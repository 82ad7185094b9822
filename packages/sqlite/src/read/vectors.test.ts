import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentMemory, type MemoryBackend } from '@agentmem/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteBackend } from '../backend';
import { seedAgedNotes, T0, WORDS } from '../test-fixtures/aged-notes';

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
    expect(await seedAgedNotes(backend, { seed: 11, clock })).toBeGreaterThan(50);
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
