import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentMemory, InMemoryBackend } from '@agentmem/core';
import { createSqliteMemory } from '@agentmem/sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { AgentMemoryStore } from './agent-memory-store';
import { expectSameAsInMemoryStore } from './store-differential';

describe('AgentMemoryStore against LangGraph InMemoryStore (differential)', () => {
  for (const seed of [1, 2, 3, 4, 5]) {
    it(`gives the same results for a random sequence of operations (seed ${seed})`, async () => {
      await expectSameAsInMemoryStore(
        new AgentMemoryStore({ memory: new AgentMemory({ backend: new InMemoryBackend() }) }),
        seed,
      );
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
