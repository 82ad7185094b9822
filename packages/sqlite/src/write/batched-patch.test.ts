import { type BackendRecord, InMemoryBackend, type MemoryBackend, type RecordPatch } from '@agentmem/core';
import { seededRandom } from '@agentmem/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteBackend } from '../backend';

/**
 * patch() writes runs of same-shaped patches with one statement; the outcome
 * must be the one of applying every patch in order (the in-memory backend's).
 */
describe('batched patch', () => {
  const open: MemoryBackend[] = [];
  afterEach(async () => {
    for (const b of open.splice(0)) await b.close();
  });

  const records = (n: number): BackendRecord[] =>
    Array.from({ length: n }, (_, i) => ({
      id: `r${i}`,
      namespace: i % 2 ? 'user' : 'project',
      tenant: '',
      text: `record ${i}`,
      attributes: { kind: 'memory', status: 'active', importance: i / n, type: 'user' },
      payload: { n: i },
    }));

  it('gives the records, counts and filter results of patches applied one by one in order', async () => {
    const sqlite = new SqliteBackend({ path: ':memory:' });
    const memory = new InMemoryBackend();
    open.push(sqlite, memory);
    for (const b of [sqlite, memory]) {
      await b.init({ dimension: 4 });
      await b.upsert(records(300));
    }
    const random = seededRandom(11);
    const statuses = ['active', 'pruned', 'superseded'];
    for (let round = 0; round < 20; round++) {
      const patches: RecordPatch[] = [];
      const size = 1 + Math.floor(random() * 120);
      for (let j = 0; j < size; j++) {
        // Mostly the decay shape (status + payload), some other shapes, repeated and unknown ids.
        const id = random() < 0.05 ? `missing${j}` : `r${Math.floor(random() * 300)}`;
        const shape = random();
        if (shape < 0.6)
          patches.push({ id, attributes: { status: statuses[Math.floor(random() * 3)]! }, payload: { round, j } });
        else if (shape < 0.8)
          patches.push({ id, attributes: { lastAccessedAt: round * 1000 + j, flag: random() < 0.5 } });
        else if (shape < 0.9) patches.push({ id, payload: { only: `payload "${j}"\n` } });
        else patches.push({ id, attributes: { status: 'active', note: null, memoryId: `m${j}` } });
      }
      expect(await sqlite.patch(patches)).toBe(await memory.patch(patches));
    }
    const ids = records(300).map((r) => r.id);
    const byId = (rs: BackendRecord[]) => [...rs].sort((a, b) => (a.id < b.id ? -1 : 1));
    expect(byId(await sqlite.get(ids, { withVectors: false }))).toEqual(
      byId(await memory.get(ids, { withVectors: false })),
    );
    for (const status of statuses) {
      const filter = { tenant: '', where: { status } };
      expect(await sqlite.count(filter)).toBe(await memory.count(filter));
    }
    const filter = { tenant: '', where: { memoryId: { in: ['m1', 'm2', 'm3'] } } };
    expect(await sqlite.count(filter)).toBe(await memory.count(filter));
  });
});
