import { describe, expect, it } from 'vitest';
import type { AttributeCondition } from '../../contracts';
import { runBackendConformance, seededRandom } from '../../testing';
import { matchesCondition } from '../match-filter';
import { InMemoryBackend } from './in-memory-backend';

runBackendConformance(
  {
    name: 'InMemoryBackend',
    create: async () => new InMemoryBackend(),
    capabilities: {
      nativeHybrid: false,
      textSearch: true,
      transactions: true,
      persistent: false,
      snapshot: false,
      readonly: false,
      links: true,
    },
  },
  { describe, it },
);

describe('InMemoryBackend.transaction', () => {
  const vec = (x: number) => new Float32Array([x, 1 - x, 0, 0]);
  const rec = (id: string, text: string) => ({
    id,
    namespace: 'n',
    tenant: '',
    text,
    vector: vec(0.5),
    attributes: { v: 1 },
    payload: { text },
  });

  it('a failed inner transaction undoes its own patches, deletes and keyword index; the outer one commits', async () => {
    const b = new InMemoryBackend();
    await b.init({ dimension: 4 });
    await b.upsert([rec('a', 'apples'), rec('b', 'bananas')]);
    await b.transaction(async () => {
      await b.upsert([rec('c', 'cherries')]);
      await b
        .transaction(async () => {
          await b.patch([{ id: 'a', attributes: { v: 2 }, payload: { text: 'patched' } }]);
          await b.upsert([rec('b', 'blueberries'), rec('d', 'dates')]);
          await b.delete(['c']);
          await b.setMeta('k', 'inner');
          throw new Error('inner fails');
        })
        .catch(() => {});
    });
    const all = await b.scan({ filter: { tenant: null } });
    expect(all.records.map((r) => [r.id, r.text, r.attributes.v, (r.payload as { text: string }).text])).toEqual([
      ['a', 'apples', 1, 'apples'],
      ['b', 'bananas', 1, 'bananas'],
      ['c', 'cherries', 1, 'cherries'],
    ]);
    expect(await b.getMeta('k')).toBeUndefined();
    const keyword = async (text: string) =>
      (await b.search({ mode: 'keyword', text, filter: { tenant: '' }, k: 5 })).map((h) => h.record.id);
    expect(await keyword('bananas')).toEqual(['b']);
    expect(await keyword('blueberries')).toEqual([]);
    expect(await keyword('dates')).toEqual([]);
    expect(await keyword('cherries')).toEqual(['c']);
  });

  it('a failed outer transaction also undoes what a committed inner one wrote', async () => {
    const b = new InMemoryBackend();
    await b.init({ dimension: 4 });
    await b.upsert([rec('a', 'apples')]);
    await b.setMeta('k', 'before');
    await expect(
      b.transaction(async () => {
        await b.transaction(async () => {
          await b.patch([{ id: 'a', attributes: { v: 2 } }]);
          await b.setMeta('k', 'inner');
        });
        await b.delete(['a']);
        throw new Error('outer fails');
      }),
    ).rejects.toThrow('outer fails');
    const [a] = await b.get(['a']);
    expect(a?.attributes.v).toBe(1);
    expect(a?.vector).toEqual(vec(0.5));
    expect(await b.getMeta('k')).toBe('before');
  });
});

describe('InMemoryBackend.scan', () => {
  // Scans by contentHash and memoryId read a lookup, the others a cached id order: both must follow
  // every write (new records, overwrites, patches, deletes, rolled-back transactions) exactly.
  it('gives what a pass over every record gives, after any mix of writes', async () => {
    const random = seededRandom(7);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)]!;
    const b = new InMemoryBackend();
    await b.init({ dimension: 4 });
    const model = new Map<string, { tenant: string; attributes: Record<string, string | number> }>();
    const ids = Array.from({ length: 60 }, (_, i) => `r${String(i).padStart(2, '0')}`);
    const hashes = ['h1', 'h2', 'h3', 'h4'];
    const record = (id: string) => {
      const attributes: Record<string, string | number> = {
        kind: pick(['memory', 'history']),
        n: Math.floor(random() * 3),
      };
      if (random() < 0.8) attributes.contentHash = pick(hashes);
      if (random() < 0.5) attributes.memoryId = pick(ids);
      return { id, namespace: 'n', tenant: pick(['', 't']), text: 'x', attributes, payload: {} };
    };
    for (let step = 0; step < 400; step++) {
      const roll = random();
      if (roll < 0.5) {
        const r = record(pick(ids));
        await b.upsert([r]);
        model.set(r.id, { tenant: r.tenant, attributes: r.attributes });
      } else if (roll < 0.7) {
        const id = pick(ids);
        const change: Record<string, string> = random() < 0.5 ? { contentHash: pick(hashes) } : { memoryId: pick(ids) };
        await b.patch([{ id, attributes: change }]);
        const m = model.get(id);
        if (m) m.attributes = { ...m.attributes, ...change };
      } else if (roll < 0.85) {
        const id = pick(ids);
        await b.delete([id]);
        model.delete(id);
      } else {
        await b
          .transaction(async () => {
            await b.upsert([record(pick(ids)), record(pick(ids))]);
            await b.patch([{ id: pick(ids), attributes: { contentHash: pick(hashes) } }]);
            await b.delete([pick(ids)]);
            throw new Error('rolled back');
          })
          .catch(() => {});
      }
      const where = pick<Record<string, AttributeCondition>>([
        { contentHash: pick(hashes) },
        { contentHash: { in: [pick(hashes), pick(hashes)] }, kind: 'memory' },
        { memoryId: pick(ids) },
        { memoryId: { in: [pick(ids), pick(ids), pick(ids)] } },
        { contentHash: null },
        { n: { gte: 1 } },
        {},
      ]);
      const filter = { tenant: pick(['', null]), where };
      const want = [...model]
        .filter(([, m]) => (filter.tenant === null || m.tenant === filter.tenant) && matches(m.attributes, where))
        .map(([id]) => id)
        .sort();
      const got: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await b.scan({ filter, cursor, limit: 7 });
        got.push(...page.records.map((r) => r.id));
        cursor = page.cursor;
      } while (cursor);
      expect(got, `step ${step}: ${JSON.stringify(filter)}`).toEqual(want);
    }
  });
});

function matches(attributes: Record<string, string | number>, where: Record<string, AttributeCondition>): boolean {
  return Object.entries(where).every(([key, condition]) => matchesCondition(attributes[key] ?? null, condition));
}

describe('InMemoryBackend content-hash lookups', () => {
  const rec = (id: string, contentHash: string) => ({
    id,
    namespace: 'n',
    tenant: '',
    text: id,
    attributes: { contentHash },
    payload: { id },
  });
  const byHash = async (b: InMemoryBackend, ...hashes: string[]) =>
    (await b.scan({ filter: { tenant: null, where: { contentHash: { in: hashes } } } })).records.map((r) => r.id);

  it('finds every record of a hash as records share it, move to another and leave (one id, then several)', async () => {
    const b = new InMemoryBackend();
    await b.upsert([rec('b', 'h1')]);
    expect(await byHash(b, 'h1')).toEqual(['b']);
    await b.upsert([rec('a', 'h1'), rec('c', 'h1'), rec('d', 'h2')]);
    expect(await byHash(b, 'h1')).toEqual(['a', 'b', 'c']);
    await b.upsert([rec('a', 'h2')]); // moves to another hash
    await b.delete(['c']);
    expect(await byHash(b, 'h1')).toEqual(['b']);
    expect(await byHash(b, 'h2', 'h1')).toEqual(['a', 'b', 'd']);
    await b.upsert([rec('b', 'h1')]); // rewritten with the same hash: still found once
    await b.delete(['b']);
    expect(await byHash(b, 'h1')).toEqual([]);
    await b
      .transaction(async () => {
        await b.upsert([rec('e', 'h1'), rec('d', 'h1')]);
        await b.delete(['a']);
        throw new Error('undone');
      })
      .catch(() => {});
    expect(await byHash(b, 'h1')).toEqual([]);
    expect(await byHash(b, 'h2')).toEqual(['a', 'd']);
  });
});
