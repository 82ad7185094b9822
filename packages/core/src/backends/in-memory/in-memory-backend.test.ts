import { describe, expect, it } from 'vitest';
import { runBackendConformance } from '../../testing';
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
