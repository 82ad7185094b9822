import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentMemory } from '@agentmem/core';
import { FakeEmbedder } from '@agentmem/core/testing';
import { createQdrantMemory } from '@agentmem/qdrant';
import { createSqliteMemory, sqliteSnapshotFormat } from '@agentmem/sqlite';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { describeWithSpec, useFakeQdrant } from './helpers';

function clock(start = Date.parse('2026-01-01T00:00:00Z')) {
  let t = start;
  const now = () => t;
  now.set = (iso: string) => {
    t = Date.parse(iso);
  };
  return now;
}

describeWithSpec('Teleport with a Qdrant store: snapshot to the portable file, merge back (fake Qdrant)', () => {
  const ctx = useFakeQdrant();
  let dir: string;
  const open: AgentMemory[] = [];
  let n = 0;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'agentmem-qdrant-teleport-'));
  });
  afterEach(async () => {
    for (const m of open.splice(0)) await m.close().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  });

  async function qdrantMemory(options: { agentId?: string; now?: () => number } = {}) {
    const memory = await createQdrantMemory({
      url: ctx.fake.url,
      collection: `teleport_${++n}`,
      checkCompatibility: false,
      embedder: new FakeEmbedder(),
      snapshotFormat: sqliteSnapshotFormat,
      ...options,
    });
    open.push(memory);
    return memory;
  }

  it('snapshots a Qdrant store into a SQLite file, another agent works in it, the merge comes back into Qdrant and can be undone', async () => {
    const now = clock();
    const a = await qdrantMemory({ agentId: 'agent-a', now });
    await a.rememberMany(
      Array.from({ length: 120 }, (_, i) => ({ content: `Known fact number ${i}`, type: 'project' as const })),
    );
    await a.remember({ content: 'User prefers concise answers', type: 'user', id: 'mem_pref' });
    const file = join(dir, 'handoff.db');
    const snap = await a.snapshot(file);
    expect(snap.manifest).toMatchObject({
      sourceBackend: 'qdrant',
      sourceAgentId: 'agent-a',
      counts: { memories: 121, history: 121 },
    });

    const b = await createSqliteMemory({
      path: file,
      embedder: new FakeEmbedder(),
      agentId: 'agent-b',
      now: clock(Date.parse('2026-01-05T00:00:00Z')),
    });
    expect((await b.stats()).total).toBe(121);
    const finding = await b.remember({ content: 'The flaky test is caused by a timezone assumption', type: 'project' });
    await b.close();

    now.set('2026-01-06T00:00:00Z');
    const diff = await a.diff(file);
    expect(diff.summary()).toBe('New: 1 memories / Duplicates: 121 / Conflicts: 0');
    const merged = await a.merge(file);
    expect(merged.counts.imported).toBe(1);
    expect(await a.get(finding.id)).toMatchObject({ agentId: 'agent-b', mergeId: merged.mergeId });
    expect((await a.recall('flaky timezone test', { k: 1 }))[0]!.memory.id).toBe(finding.id);
    expect((await a.merge(file)).counts.imported).toBe(0);

    now.set('2026-01-07T00:00:00Z');
    const undo = await a.undoMerge(merged.mergeId);
    expect(undo.removed).toBe(1);
    expect(await a.get(finding.id)).toBeUndefined();
  });

  it('migrates a SQLite store into an empty Qdrant collection (snapshot + merge)', async () => {
    const source = await createSqliteMemory({
      path: join(dir, 'local.db'),
      embedder: new FakeEmbedder(),
      snapshotFormat: sqliteSnapshotFormat,
    });
    await source.rememberMany(
      Array.from({ length: 40 }, (_, i) => ({
        content: `Local memory ${i} about deployments`,
        type: 'project' as const,
      })),
    );
    const file = join(dir, 'export.db');
    await source.snapshot(file);
    await source.close();

    const target = await qdrantMemory();
    const merged = await target.merge(file);
    expect(merged.counts.imported).toBe(40);
    expect((await target.stats()).total).toBe(40);
    expect((await target.recall('memory 7 deployments', { k: 3 })).length).toBeGreaterThan(0);
  });
});
