import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryStore } from '@agentmem/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteBackend } from '../backend';

describe('recall on SQLite: reads are reads', () => {
  let dir: string;
  let path: string;
  let id: string;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'agentmem-reads-'));
    path = join(dir, 'memory.db');
    const store = await MemoryStore.open({ backend: new SqliteBackend({ path }) });
    [{ id }] = (await store.rememberMany([
      { content: 'The staging cluster runs Kubernetes 1.30', type: 'project' },
      { content: 'Deploys go out on Tuesdays', type: 'project' },
    ])) as [{ id: string }, unknown];
    await store.close();
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const storedAccessCount = async () => {
    const reader = await MemoryStore.open({ backend: new SqliteBackend({ path, readonly: true }) });
    try {
      return (await reader.get(id))?.accessCount;
    } finally {
      await reader.close();
    }
  };

  it('writes recall accesses on close, all of them, and none before', async () => {
    const store = await MemoryStore.open({
      backend: new SqliteBackend({ path }),
      reinforcement: { flushIntervalMs: 60_000 },
    });
    for (let i = 0; i < 3; i++) expect((await store.recall('kubernetes staging'))[0]?.memory.id).toBe(id);
    expect(await storedAccessCount()).toBe(0);
    await store.close();
    expect(await storedAccessCount()).toBe(3);
  });

  it('a read-only store recalls with the default options and changes nothing', async () => {
    const before = statSync(path).mtimeMs;
    const store = await MemoryStore.open({ backend: new SqliteBackend({ path, readonly: true }) });
    const [top] = await store.recall('kubernetes staging');
    expect(top?.memory.id).toBe(id);
    await store.close();
    expect(await storedAccessCount()).toBe(0);
    expect(statSync(path).mtimeMs).toBe(before);
  });
});
