import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentMemory, InMemoryBackend } from '@agentmem/core';
import { seededRandom } from '@agentmem/core/testing';
import { createSqliteMemory } from '@agentmem/sqlite';
import { SyntheticEmbeddings } from '@langchain/core/utils/testing';
import { InMemoryStore, type Item } from '@langchain/langgraph-checkpoint';
import { afterEach, describe, expect, it } from 'vitest';
import { AgentMemoryStore } from './agent-memory-store';

const plain = (item: Item | null) => (item ? { namespace: item.namespace, key: item.key, value: item.value } : null);
const ids = (items: Item[]) => items.map((i) => `${i.namespace.join('/')}#${i.key}`).sort();

describe('AgentMemoryStore against LangGraph InMemoryStore (differential)', () => {
  for (const seed of [1, 2, 3, 4, 5]) {
    it(`gives the same results for a random sequence of operations (seed ${seed})`, async () => {
      const random = seededRandom(seed);
      const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)]!;
      const reference = new InMemoryStore({
        index: { dims: 16, embeddings: new SyntheticEmbeddings({ vectorSize: 16 }) },
      });
      const ours = new AgentMemoryStore({ memory: new AgentMemory({ backend: new InMemoryBackend() }) });
      const namespaces = [
        ['users', 'u1'],
        ['users', 'u2'],
        ['users', 'u1', 'prefs'],
        ['docs'],
        ['docs', 'public', 'v1'],
      ];
      const keys = ['a', 'b', 'c', 'd'];
      const colours = ['red', 'green', 'blue'];
      for (let step = 0; step < 150; step++) {
        const roll = random();
        const ns = pick(namespaces);
        const key = pick(keys);
        if (roll < 0.4) {
          const value = {
            colour: pick(colours),
            size: Math.floor(random() * 10),
            text: `item ${key} in ${ns.join(' ')}`,
          };
          await reference.put(ns, key, value);
          await ours.put(ns, key, value);
        } else if (roll < 0.5) {
          await reference.delete(ns, key);
          await ours.delete(ns, key);
        } else if (roll < 0.7) {
          expect(plain(await ours.get(ns, key)), `get ${ns}/${key} at step ${step}`).toEqual(
            plain(await reference.get(ns, key)),
          );
        } else if (roll < 0.9) {
          const prefix = ns.slice(0, 1 + Math.floor(random() * ns.length));
          const filter = pick<Record<string, unknown>>([
            { colour: pick(colours) },
            { size: { [pick(['$gt', '$lte', '$ne'])]: Math.floor(random() * 10) } },
            { size: { $in: [1, 2, 3] }, colour: { $nin: ['red'] } },
            // LangGraph's edge cases: an empty operator object matches anything, a mixed one compares by identity.
            { colour: {} },
            { size: { $gt: 1, note: 2 } },
          ]);
          // Semantic search is compared by membership: with a limit above the item count both stores return
          // every match (scored or topped up unscored), whatever their ranking.
          const options =
            random() < 0.5 ? { filter, limit: 1000 } : { filter, limit: 1000, query: `${pick(colours)} item ${key}` };
          expect(
            ids(await ours.search(prefix, options)),
            `search ${prefix} ${JSON.stringify(options)} at step ${step}`,
          ).toEqual(ids(await reference.search(prefix, options)));
        } else {
          const options =
            random() < 0.5
              ? { prefix: ns.slice(0, 1) }
              : { suffix: [ns.at(-1)!], maxDepth: random() < 0.5 ? 2 : undefined };
          // LangGraph's InMemoryStore keeps listing a namespace after its last item is deleted; a database store
          // (and ours) lists namespaces that hold items. Compare on those: list without maxDepth, keep the
          // namespaces that hold items, then truncate to maxDepth the way LangGraph does.
          const { maxDepth, ...conditions } = options as { maxDepth?: number };
          const held: string[][] = [];
          for (const listed of await reference.listNamespaces({ ...conditions, limit: 1000 })) {
            const items = await reference.search(listed, { limit: 1000 });
            if (items.some((i) => i.namespace.join('/') === listed.join('/'))) held.push(listed);
          }
          const truncated = maxDepth === undefined ? held : held.map((ns) => ns.slice(0, maxDepth));
          const expected = [...new Map(truncated.map((ns) => [ns.join(':'), ns])).values()].sort((a, b) =>
            a.join(':').localeCompare(b.join(':')),
          );
          expect(
            await ours.listNamespaces({ ...options, limit: 1000 }),
            `listNamespaces ${JSON.stringify(options)} at step ${step}`,
          ).toEqual(expected);
        }
      }
    });
  }

  it('lists namespaces with prefix, suffix, wildcards, maxDepth, limit and offset', async () => {
    const store = new AgentMemoryStore({ memory: new AgentMemory({ backend: new InMemoryBackend() }) });
    for (const ns of [
      ['a', 'x', '1'],
      ['a', 'y', '1'],
      ['b', 'x'],
      ['a', 'x', '2'],
    ])
      await store.put(ns, 'k', { v: 1 });
    expect(await store.listNamespaces({ prefix: ['a'] })).toEqual([
      ['a', 'x', '1'],
      ['a', 'x', '2'],
      ['a', 'y', '1'],
    ]);
    expect(await store.listNamespaces({ prefix: ['a', '*', '1'] })).toEqual([
      ['a', 'x', '1'],
      ['a', 'y', '1'],
    ]);
    expect(await store.listNamespaces({ suffix: ['x'] })).toEqual([['b', 'x']]);
    expect(await store.listNamespaces({ maxDepth: 1 })).toEqual([['a'], ['b']]);
    expect(await store.listNamespaces({ limit: 2, offset: 1 })).toEqual([
      ['a', 'x', '2'],
      ['a', 'y', '1'],
    ]);
  });
});

describe('AgentMemoryStore search and persistence', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('finds items by hybrid semantic search, honouring index fields, index:false, filter and tenants', async () => {
    const backend = new InMemoryBackend();
    const store = new AgentMemoryStore({
      memory: new AgentMemory({ backend, tenant: 'alice' }),
      index: { fields: ['text'] },
    });
    await store.put(['memories'], 'm1', { text: 'Prefers dark mode in the editor', kind: 'pref' });
    await store.put(['memories'], 'm2', { text: 'Deploys go out on Tuesdays', kind: 'fact' });
    await store.put(['memories'], 'm3', { text: 'Secret dark mode note', kind: 'pref' }, false);
    const hits = await store.search(['memories'], { query: 'dark mode editor', limit: 2 });
    expect(hits[0]!.key).toBe('m1');
    expect(hits[0]!.score).toBeGreaterThan(0);
    // m3 is not indexed: it can only appear as an unscored filler.
    expect(hits.find((h) => h.key === 'm3')?.score).toBeUndefined();
    const filtered = await store.search(['memories'], { query: 'dark mode', filter: { kind: 'fact' } });
    expect(filtered.map((h) => h.key)).toEqual(['m2']);
    const bob = new AgentMemoryStore({ memory: new AgentMemory({ backend, tenant: 'bob' }) });
    expect(await bob.search(['memories'], { query: 'dark mode' })).toEqual([]);
    expect(await bob.get(['memories'], 'm1')).toBeNull();
  });

  it('indexes the whole value by default, and LangGraph paths (nested, arrays, several fields) when given', async () => {
    const store = new AgentMemoryStore({ memory: new AgentMemory({ backend: new InMemoryBackend() }) });
    await store.put(['notes'], 'a', { text: 'Prefers dark mode in the editor', meta: { year: 2024 } });
    await store.put(['notes'], 'b', { text: 'Deploys go out on Tuesdays' });
    const [top] = await store.search(['notes'], { query: 'dark mode editor', limit: 1 });
    expect(top).toMatchObject({ key: 'a', score: expect.any(Number) });

    const paths = new AgentMemoryStore({ memory: new AgentMemory({ backend: new InMemoryBackend() }) });
    const doc = {
      title: 'Runbook',
      meta: { owner: 'platform team' },
      steps: [{ body: 'restart the ingress' }, { body: 'page the oncall' }],
    };
    await paths.put(['docs'], 'nested', doc, ['meta.owner']);
    await paths.put(['docs'], 'array', doc, ['steps[*].body']);
    await paths.put(['docs'], 'last', doc, ['steps[-1].body']);
    await paths.put(['docs'], 'fields', doc, ['{title,meta.owner}']);
    const scored = async (query: string) =>
      (await paths.search(['docs'], { query, limit: 10 }))
        .filter((i) => i.score !== undefined)
        .map((i) => i.key)
        .sort();
    expect(await scored('platform team')).toEqual(['fields', 'nested']);
    expect(await scored('restart ingress')).toEqual(['array']);
    expect(await scored('page oncall')).toEqual(['array', 'last']);
    expect(await scored('runbook')).toEqual(['fields']);
  });

  it('keeps items across two store instances on one SQLite file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentmem-lg-'));
    dirs.push(dir);
    const path = join(dir, 'store.db');
    const first = await createSqliteMemory({ path });
    const a = new AgentMemoryStore({ memory: first });
    await a.put(['users', 'u1'], 'prefs', { theme: 'dark' });
    const created = (await a.get(['users', 'u1'], 'prefs'))!.createdAt;
    await a.put(['users', 'u1'], 'prefs', { theme: 'light' });
    await first.close();
    const second = await createSqliteMemory({ path });
    const b = new AgentMemoryStore({ memory: second });
    const item = await b.get(['users', 'u1'], 'prefs');
    expect(item?.value).toEqual({ theme: 'light' });
    expect(item?.createdAt).toEqual(created);
    expect(item!.updatedAt.getTime()).toBeGreaterThanOrEqual(created.getTime());
    expect(await b.listNamespaces()).toEqual([['users', 'u1']]);
    await second.close();
  });
});
