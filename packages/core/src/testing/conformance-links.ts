import assert from 'node:assert/strict';
// The package's own name, not relative paths: the built testing entry imports core instead of bundling a copy.
import { AgentMemory, AgentMemoryError, type BackendRecord, HashingEmbedder, type MemoryBackend } from '@agentmem/core';

/** What the link cases need from the suite: a case registrar, a record maker, a fresh backend. */
export interface LinkCaseKit {
  add: (name: string, fn: (b: MemoryBackend) => Promise<void>) => void;
  rec: (id: string, overrides?: Partial<BackendRecord>) => BackendRecord;
  create: () => Promise<MemoryBackend>;
  transactions: boolean;
  push: (c: { name: string; run: () => Promise<void> }) => void;
}

/** Every id linked to a key in scope, paging with `after` through pages of `limit`. */
async function allLinked(
  b: MemoryBackend,
  key: string,
  scope: { tenant: string | null; namespaces?: readonly string[] },
  limit: number,
): Promise<string[]> {
  const out: string[] = [];
  let after: string | undefined;
  for (let pages = 0; pages < 10_000; pages++) {
    const [page] = await b.linked!({ ...scope, keys: [key], limit, ...(after ? { after } : {}) });
    out.push(...page!.ids);
    if (page!.ids.length < limit) return out;
    after = page!.ids[page!.ids.length - 1];
  }
  throw new Error('linked() paging never ended');
}

/** The cases of backends whose capabilities say `links` (memory <-> entity links). */
export function linkConformanceCases(kit: LinkCaseKit): void {
  const { add, rec } = kit;

  add('links: declared with linked and linkKeys, stored and returned with the record', async (b) => {
    assert.equal(typeof b.linked, 'function', 'capabilities.links needs linked()');
    assert.equal(typeof b.linkKeys, 'function', 'capabilities.links needs linkKeys()');
    await b.upsert([rec('l1', { links: ['carolin', 'date:2023-05-07'] }), rec('l2')]);
    const [got] = await b.get(['l1']);
    assert.deepEqual([...(got?.links ?? [])].sort(), ['carolin', 'date:2023-05-07'], 'get returns the links');
    const page = await b.scan({ filter: { tenant: '' } });
    const scanned = page.records.find((r) => r.id === 'l1');
    assert.deepEqual([...(scanned?.links ?? [])].sort(), ['carolin', 'date:2023-05-07'], 'scan returns the links');
    const [plain] = await b.get(['l2']);
    assert.ok(!plain?.links || plain.links.length === 0, 'a record without links has none');
    await assert.rejects(
      () => b.upsert([rec('bad', { links: ['ok', ''] })]),
      (e: unknown) => AgentMemoryError.hasCode(e, 'INVALID_INPUT'),
      'an empty key is refused',
    );
    assert.equal((await b.get(['bad'])).length, 0, 'a refused write changes nothing');
  });

  add('links: linked counts every linked record in scope and returns the first ids in id order', async (b) => {
    await b.upsert([
      rec('a1', { links: ['melani', 'pottery class'] }),
      rec('a2', { links: ['melani'] }),
      rec('a3', { links: ['melani', 'pottery class'], namespace: 'other' }),
      rec('a4', { links: ['melani'], tenant: 't2' }),
      rec('a0', { links: ['melani'] }),
    ]);
    const all = await b.linked!({ tenant: '', keys: ['melani', 'pottery class', 'nobody'], limit: 10 });
    const byKey = new Map(all.map((l) => [l.key, l]));
    assert.deepEqual(byKey.get('melani'), { key: 'melani', count: 4, ids: ['a0', 'a1', 'a2', 'a3'] });
    assert.deepEqual(byKey.get('pottery class'), { key: 'pottery class', count: 2, ids: ['a1', 'a3'] });
    assert.deepEqual(byKey.get('nobody'), { key: 'nobody', count: 0, ids: [] }, 'an unknown key counts 0');
    const [ns] = await b.linked!({ tenant: '', namespaces: ['ns'], keys: ['melani'], limit: 2 });
    assert.deepEqual(
      ns,
      { key: 'melani', count: 3, ids: ['a0', 'a1'] },
      'namespaces narrow; limit caps ids, not count',
    );
    const [none] = await b.linked!({ tenant: '', namespaces: [], keys: ['melani'], limit: 5 });
    assert.equal(none?.count, 0, 'an empty namespace list matches nothing');
    const [t2] = await b.linked!({ tenant: 't2', keys: ['melani'], limit: 5 });
    assert.deepEqual(t2?.ids, ['a4'], 'a tenant sees only its own links');
    const [every] = await b.linked!({ tenant: null, keys: ['melani'], limit: 0 });
    assert.deepEqual(
      every,
      { key: 'melani', count: 5, ids: [] },
      'tenant null counts every tenant; limit 0 counts only',
    );
    const [after] = await b.linked!({ tenant: '', keys: ['melani'], limit: 10, after: 'a1' });
    assert.deepEqual(after?.ids, ['a2', 'a3'], '`after` pages on');
    const capped = await b.linked!({ tenant: '', keys: ['melani', 'pottery class'], limit: 10, maxCount: 2 });
    assert.deepEqual(
      capped,
      [
        { key: 'melani', count: 4, ids: [] },
        { key: 'pottery class', count: 2, ids: ['a1', 'a3'] },
      ],
      'a key over maxCount gives its count and no ids',
    );
  });

  add("links: an overwrite replaces a record's links, a delete removes them", async (b) => {
    await b.upsert([rec('o1', { links: ['old', 'kept'] }), rec('o2', { links: ['kept'] })]);
    await b.upsert([rec('o1', { links: ['kept', 'new'] })]);
    const counts = async () =>
      Object.fromEntries(
        (await b.linked!({ tenant: '', keys: ['old', 'kept', 'new'], limit: 10 })).map((l) => [l.key, l.count]),
      );
    assert.deepEqual(await counts(), { old: 0, kept: 2, new: 1 });
    await b.patch([{ id: 'o1', attributes: { status: 'superseded' } }]);
    assert.deepEqual(await counts(), { old: 0, kept: 2, new: 1 }, 'a patch leaves links as they are');
    await b.upsert([rec('o1')]);
    assert.deepEqual(await counts(), { old: 0, kept: 1, new: 0 }, 'an overwrite without links removes them');
    await b.delete(['o2']);
    assert.deepEqual(await counts(), { old: 0, kept: 0, new: 0 });
    assert.deepEqual((await b.linkKeys!({ tenant: '' })).keys, [], 'no key is left without a record');
  });

  add('links: every link of a key is reachable by paging, however many', async (b) => {
    const n = 1_203;
    const batch: BackendRecord[] = [];
    for (let i = 0; i < n; i++)
      batch.push(rec(`p${String(i).padStart(5, '0')}`, { links: ['speaker', `topic ${i % 7}`] }));
    await b.upsert(batch);
    const ids = await allLinked(b, 'speaker', { tenant: '' }, 250);
    assert.equal(ids.length, n);
    assert.equal(new Set(ids).size, n, 'each id once');
    assert.deepEqual(ids, [...ids].sort(), 'in id order');
    const [counted] = await b.linked!({ tenant: '', keys: ['speaker'], limit: 0 });
    assert.equal(counted?.count, n);
  });

  add('links: linkKeys lists every key in scope with its count, page by page, by prefix', async (b) => {
    await b.upsert([
      rec('k1', { links: ['date:2023-05-07', 'carolin'] }),
      rec('k2', { links: ['date:2023-05-08', 'carolin'] }),
      rec('k3', { links: ['date:2022', 'melani'], namespace: 'other' }),
      rec('k4', { links: ['zed'], tenant: 't2' }),
    ]);
    const pages: { key: string; count: number }[][] = [];
    let cursor: string | undefined;
    do {
      const page = await b.linkKeys!({ tenant: '', limit: 2, ...(cursor ? { cursor } : {}) });
      pages.push(page.keys);
      cursor = page.cursor;
    } while (cursor !== undefined && pages.length < 100);
    assert.deepEqual(pages.flat(), [
      { key: 'carolin', count: 2 },
      { key: 'date:2022', count: 1 },
      { key: 'date:2023-05-07', count: 1 },
      { key: 'date:2023-05-08', count: 1 },
      { key: 'melani', count: 1 },
    ]);
    assert.deepEqual(
      (await b.linkKeys!({ tenant: '', prefix: 'date:2023' })).keys.map((k) => k.key),
      ['date:2023-05-07', 'date:2023-05-08'],
    );
    assert.deepEqual(
      (await b.linkKeys!({ tenant: '', namespaces: ['ns'] })).keys.map((k) => k.key),
      ['carolin', 'date:2023-05-07', 'date:2023-05-08'],
    );
    assert.deepEqual((await b.linkKeys!({ tenant: 't2' })).keys, [{ key: 'zed', count: 1 }]);
  });

  if (kit.transactions) {
    add('links: a failed transaction leaves the links as they were', async (b) => {
      await b.upsert([rec('t1', { links: ['before'] })]);
      await assert.rejects(
        () =>
          b.transaction!(async () => {
            await b.upsert([rec('t1', { links: ['during'] }), rec('t2', { links: ['during'] })]);
            await b.delete(['t1']);
            throw new Error('injected failure');
          }),
        /injected failure/,
      );
      const counts = await b.linked!({ tenant: '', keys: ['before', 'during'], limit: 10 });
      assert.deepEqual(
        counts.map((c) => [c.key, c.count, c.ids]),
        [
          ['before', 1, ['t1']],
          ['during', 0, []],
        ],
      );
    });
  }

  kit.push({
    name: 'MemoryStore on this backend: entities of a conversation, recall through them, entity API',
    run: async () => {
      const backend = await kit.create();
      try {
        const memory = new AgentMemory({
          backend,
          embedder: new HashingEmbedder({ dimension: 64 }),
          now: () => Date.parse('2026-03-01T00:00:00Z'),
        });
        const turns = await memory.rememberConversation(
          [
            { speaker: 'Melanie', text: 'We adopted a kitten and named her Luna.' },
            { speaker: 'Caroline', text: 'I went to a support group yesterday.' },
            { speaker: 'Melanie', text: 'Luna sleeps on the piano all day.' },
          ],
          { at: '2023-05-08T13:56:00Z', sessionId: 's1' },
        );
        const keys = (i: number) => (turns[i]!.entities ?? []).map((e) => e.key).sort();
        assert.deepEqual(keys(0), ['luna', 'melani']);
        assert.deepEqual(keys(1), ['carolin', 'date:2023-05-07'], '"yesterday" resolves against the turn\'s time');
        const luna = await memory.entityMemories('Luna');
        assert.deepEqual(
          luna.map((m) => m.id).sort(),
          [turns[0]!.id, turns[2]!.id].sort(),
          '"Luna" opening a sentence is a name: the batch names it mid-sentence',
        );
        const neighbours = await memory.entityNeighbours('Luna');
        assert.deepEqual(
          neighbours.map((n) => [n.name, n.shared]),
          [['Melanie', 2]],
        );
        const listed = await memory.entities();
        assert.deepEqual(
          listed.entities.map((e) => [e.key, e.kind, e.count]),
          [
            ['carolin', 'person', 1],
            ['date:2023-05-07', 'date', 1],
            ['luna', 'name', 2],
            ['melani', 'person', 2],
          ],
        );
        // A memory linked to an entity the query names is reached through the link, without the word.
        const piano = await memory.remember({
          content: 'She naps on the piano every afternoon.',
          type: 'user',
          entities: [{ name: 'Luna', kind: 'name' }],
        });
        const results = await memory.recall('Where does Luna like to sleep?', { k: 5, reinforce: false });
        const reached = results.find((r) => r.memory.id === piano.id);
        assert.ok(reached, 'the memory linked to Luna is recalled');
        assert.deepEqual(reached.signals.entity?.keys, ['luna'], 'with the entity that reached it');
        const off = await memory.recall('Where does Luna like to sleep?', {
          k: 5,
          mode: 'keyword',
          reinforce: false,
          entityEvidence: false,
        });
        assert.ok(!off.some((r) => r.memory.id === piano.id), 'no word of it matches the query');
        await memory.forget(turns[0]!.id);
        assert.deepEqual(
          (await memory.entityMemories('Luna')).map((m) => m.id),
          [piano.id, turns[2]!.id].sort(),
          'a forgotten memory leaves its entities',
        );
      } finally {
        await backend.close().catch(() => {});
      }
    },
  });
}
