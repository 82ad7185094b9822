import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BackendRecord, SearchHit } from '@agentmem/core';
import { SemanticTestEmbedder, seededRandom } from '@agentmem/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteBackend } from '../backend';

const embedder = new SemanticTestEmbedder();

function corpus(n: number, seed: number): string[] {
  const random = seededRandom(seed);
  const vocabulary = Array.from({ length: 600 }, (_, i) => `w${i.toString(36)}x`);
  return Array.from({ length: n }, () =>
    Array.from({ length: 4 + Math.floor(random() * 8) }, () => vocabulary[Math.floor(random() * 600)]).join(' '),
  );
}

function record(id: string, text: string, attributes: BackendRecord['attributes'] = {}): BackendRecord {
  return { id, namespace: 'ns', tenant: '', text, vector: embedder.embedOne(text), attributes, payload: {} };
}

const ids = (hits: SearchHit[]) => hits.map((h) => h.record.id);

describe('approximate dense search (binary index + exact rescoring)', () => {
  let dir: string;
  let path: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'agentmem-binary-'));
    path = join(dir, 'memory.db');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('returns what exact search returns for at least 98% of the top 10, with exact scores', async () => {
    const approximate = new SqliteBackend({ path });
    await approximate.init({ dimension: embedder.dimension });
    await approximate.upsert(corpus(3000, 1).map((text, i) => record(`r${i}`, text)));
    const exact = new SqliteBackend({ path, denseSearch: 'exact' });
    await exact.init({ dimension: embedder.dimension });
    try {
      let found = 0;
      const queries = corpus(40, 2);
      for (const q of queries) {
        const request = { mode: 'dense' as const, vector: embedder.embedOne(q), filter: { tenant: '' }, k: 10 };
        const a = await approximate.search(request);
        const e = await exact.search(request);
        expect(a).toHaveLength(10);
        const exactIds = new Set(ids(e));
        found += ids(a).filter((id) => exactIds.has(id)).length;
        for (const hit of a) {
          const same = e.find((x) => x.record.id === hit.record.id);
          if (same) expect(hit.score).toBeCloseTo(same.score, 5);
        }
      }
      expect(found / (queries.length * 10)).toBeGreaterThanOrEqual(0.98);
    } finally {
      await approximate.close();
      await exact.close();
    }
  });

  it('sees its own writes: inside the transaction, after commit, not after rollback, not once deleted', async () => {
    const b = new SqliteBackend({ path });
    await b.init({ dimension: embedder.dimension });
    try {
      await b.upsert(corpus(1500, 3).map((text, i) => record(`r${i}`, text)));
      const search = async (text: string) =>
        ids(await b.search({ mode: 'dense', vector: embedder.embedOne(text), filter: { tenant: '' }, k: 3 }));
      await search('warm the index'); // loaded before the writes below
      const probe = 'zebra quantum lighthouse marmalade';
      await expect(
        b.transaction(async () => {
          await b.upsert([record('new', probe)]);
          expect((await search(probe))[0]).toBe('new');
          throw new Error('undo');
        }),
      ).rejects.toThrow('undo');
      expect(await search(probe)).not.toContain('new');
      await b.upsert([record('new', probe)]);
      expect((await search(probe))[0]).toBe('new');
      // A changed vector is ranked by the new one.
      await b.upsert([record('new', 'completely different words here')]);
      expect(await search(probe)).not.toContain('new');
      expect((await search('completely different words here'))[0]).toBe('new');
      await b.delete(['new']);
      expect(await search('completely different words here')).not.toContain('new');
    } finally {
      await b.close();
    }
  });

  it('ranks a row changed or deleted inside the open transaction by what the transaction wrote', async () => {
    const b = new SqliteBackend({ path });
    await b.init({ dimension: embedder.dimension });
    try {
      const texts = corpus(1500, 6);
      await b.upsert(texts.map((text, i) => record(`r${i}`, text)));
      const search = async (text: string) =>
        ids(await b.search({ mode: 'dense', vector: embedder.embedOne(text), filter: { tenant: '' }, k: 3 }));
      expect((await search(texts[7]!))[0]).toBe('r7'); // in the in-process index with its first vector
      const probe = 'zebra quantum lighthouse marmalade';
      await expect(
        b.transaction(async () => {
          await b.upsert([record('r7', probe)]);
          expect((await search(probe))[0]).toBe('r7');
          expect(await search(texts[7]!)).not.toContain('r7');
          await b.delete(['r7']);
          expect(await search(probe)).not.toContain('r7');
          throw new Error('undo');
        }),
      ).rejects.toThrow('undo');
      expect((await search(texts[7]!))[0]).toBe('r7');
      expect(await search(probe)).not.toContain('r7');
    } finally {
      await b.close();
    }
  });

  it('searches a file whose codes hold sign bits only (written before the int8 copies) as well', async () => {
    const writer = new SqliteBackend({ path });
    await writer.init({ dimension: embedder.dimension });
    await writer.upsert(corpus(2000, 7).map((text, i) => record(`r${i}`, text)));
    writer.database.prepare('UPDATE vector_codes SET code = substr(code, 1, 48)').run();
    await writer.close();
    const b = new SqliteBackend({ path });
    const exact = new SqliteBackend({ path, denseSearch: 'exact' });
    try {
      let found = 0;
      const queries = corpus(20, 8);
      for (const q of queries) {
        const request = { mode: 'dense' as const, vector: embedder.embedOne(q), filter: { tenant: '' }, k: 10 };
        const want = new Set(ids(await exact.search(request)));
        found += ids(await b.search(request)).filter((id) => want.has(id)).length;
      }
      expect(found / (queries.length * 10)).toBeGreaterThanOrEqual(0.98);
    } finally {
      await b.close();
      await exact.close();
    }
  });

  it("finds another connection's committed writes", async () => {
    const a = new SqliteBackend({ path });
    await a.init({ dimension: embedder.dimension });
    const other = new SqliteBackend({ path });
    await other.init({ dimension: embedder.dimension });
    try {
      await a.upsert(corpus(1500, 4).map((text, i) => record(`r${i}`, text)));
      const probe = 'violet harbour engine sonnet';
      const search = async () =>
        ids(await a.search({ mode: 'dense', vector: embedder.embedOne(probe), filter: { tenant: '' }, k: 1 }));
      expect(await search()).not.toEqual(['elsewhere']);
      await other.upsert([record('elsewhere', probe)]);
      expect(await search()).toEqual(['elsewhere']);
    } finally {
      await a.close();
      await other.close();
    }
  });

  it('still returns k matches when the filter keeps few candidates', async () => {
    const b = new SqliteBackend({ path });
    await b.init({ dimension: embedder.dimension });
    try {
      const texts = corpus(3000, 5);
      await b.upsert(texts.map((text, i) => record(`r${i}`, text, { keep: i % 100 === 0 })));
      const vector = embedder.embedOne(texts[1]!);
      const request = { mode: 'dense' as const, vector, filter: { tenant: '', where: { keep: true } }, k: 5 };
      const hits = await b.search(request);
      expect(hits).toHaveLength(5);
      expect(hits.every((h) => h.record.attributes.keep === true)).toBe(true);
      const exact = new SqliteBackend({ path, denseSearch: 'exact' });
      try {
        expect(ids(hits)).toEqual(ids(await exact.search(request)));
      } finally {
        await exact.close();
      }
    } finally {
      await b.close();
    }
  });
});
