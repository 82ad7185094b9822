import { describe, expect, it } from 'vitest';
import type { BackendRecord } from '../../contracts';
import { SemanticTestEmbedder, seededRandom } from '../../testing';
import { InMemoryBackend } from './in-memory-backend';

const embedder = new SemanticTestEmbedder();

function texts(n: number, seed: number): string[] {
  const random = seededRandom(seed);
  return Array.from({ length: n }, () =>
    Array.from({ length: 4 + Math.floor(random() * 8) }, () => `w${Math.floor(random() * 600).toString(36)}x`).join(
      ' ',
    ),
  );
}

const record = (id: string, text: string, keep: boolean): BackendRecord => ({
  id,
  namespace: 'ns',
  tenant: '',
  text,
  vector: embedder.embedOne(text),
  attributes: { keep },
  payload: {},
});

describe('InMemoryBackend approximate dense search', () => {
  it('finds at least 98% of the exact top 10, follows writes and rollbacks, keeps k under a selective filter', async () => {
    const approximate = new InMemoryBackend();
    const exact = new InMemoryBackend({ denseSearch: 'exact' });
    const docs = texts(3000, 1).map((t, i) => record(`r${i}`, t, i % 100 === 0));
    for (const b of [approximate, exact]) {
      await b.init({ dimension: embedder.dimension });
      await b.upsert(docs);
    }
    const search = (b: InMemoryBackend, text: string, k: number, where?: { keep: boolean }) =>
      b.search({
        mode: 'dense',
        vector: embedder.embedOne(text),
        filter: { tenant: '', ...(where ? { where } : {}) },
        k,
      });
    let found = 0;
    const queries = texts(40, 2);
    for (const q of queries) {
      const want = new Set((await search(exact, q, 10)).map((h) => h.record.id));
      found += (await search(approximate, q, 10)).filter((h) => want.has(h.record.id)).length;
    }
    expect(found / (queries.length * 10)).toBeGreaterThanOrEqual(0.98);
    const selective = await search(approximate, queries[0]!, 5, { keep: true });
    expect(selective.map((h) => h.record.id)).toEqual(
      (await search(exact, queries[0]!, 5, { keep: true })).map((h) => h.record.id),
    );

    const probe = 'zebra quantum lighthouse marmalade';
    await expect(
      approximate.transaction(async () => {
        await approximate.upsert([record('new', probe, false)]);
        expect((await search(approximate, probe, 1))[0]?.record.id).toBe('new');
        throw new Error('undo');
      }),
    ).rejects.toThrow('undo');
    expect((await search(approximate, probe, 3)).map((h) => h.record.id)).not.toContain('new');
    await approximate.upsert([record('new', probe, false)]);
    await approximate.delete(['new']);
    expect((await search(approximate, probe, 3)).map((h) => h.record.id)).not.toContain('new');
  });
});
