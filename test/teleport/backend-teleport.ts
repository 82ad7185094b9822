import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentMemory } from '@agentmem/core';
import { FakeEmbedder } from '@agentmem/core/testing';
import { createSqliteMemory, sqliteSnapshotFormat } from '@agentmem/sqlite';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { clock, fullState } from './helpers';

/** Opens a fresh, empty store on the backend under test (FakeEmbedder, sqlite snapshot format). */
export type OpenStore = (options: { agentId?: string; now?: () => number }) => Promise<AgentMemory>;

/**
 * Teleport through the portable SQLite file for a server backend (registers
 * its tests in the enclosing describe): snapshot, another agent works in the
 * file, merge back with a conflict, undo; and migrating a SQLite store in.
 */
export function teleportCases(backend: string, openStore: OpenStore): void {
  let dir: string;
  const open: AgentMemory[] = [];
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), `agentmem-${backend}-teleport-`));
  });
  afterEach(async () => {
    for (const m of open.splice(0)) await m.close().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  });
  const store = async (options: { agentId?: string; now?: () => number } = {}) => {
    const memory = await openStore(options);
    open.push(memory);
    return memory;
  };

  it(`snapshots a ${backend} store into a SQLite file, another agent works in it, the merge comes back and undo restores the state`, async () => {
    const now = clock();
    const a = await store({ agentId: 'agent-a', now });
    await a.rememberMany(
      Array.from({ length: 120 }, (_, i) => ({ content: `Known fact number ${i}`, type: 'project' as const })),
    );
    await a.remember({ content: 'User prefers concise answers', type: 'user', id: 'mem_pref' });
    const file = join(dir, 'handoff.db');
    const snap = await a.snapshot(file);
    expect(snap.manifest).toMatchObject({
      sourceBackend: backend,
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
    await b.update('mem_pref', { content: 'User prefers detailed answers with examples' });
    await b.close();

    now.set('2026-01-06T00:00:00Z');
    const before = await fullState(a.backend);
    const diff = await a.diff(file);
    expect(diff.summary()).toBe('New: 1 memory / Duplicates: 120 / Conflicts: 1');
    const merged = await a.merge(file);
    expect(merged.counts).toMatchObject({ imported: 1, conflicts: 1, overwritten: 1 });
    expect(await a.get(finding.id)).toMatchObject({ agentId: 'agent-b', mergeId: merged.mergeId });
    expect((await a.get('mem_pref'))!.content).toBe('User prefers detailed answers with examples');
    expect((await a.recall('flaky timezone test', { k: 1 }))[0]!.memory.id).toBe(finding.id);
    expect((await a.merge(file)).counts.imported).toBe(0);

    now.set('2026-01-07T00:00:00Z');
    const undo = await a.undoMerge(merged.mergeId);
    expect(undo).toMatchObject({ removed: 1, restored: 1 });
    expect(await a.get(finding.id)).toBeUndefined();
    const visible = (s: typeof before) =>
      (s.records as { namespace: string }[]).filter((r) => r.namespace !== '_history' && r.namespace !== '_merges');
    expect(visible(await fullState(a.backend))).toEqual(visible(before));
  });

  it(`migrates a SQLite store into an empty ${backend} store (snapshot + merge)`, async () => {
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

    const target = await store();
    const merged = await target.merge(file);
    expect(merged.counts.imported).toBe(40);
    expect((await target.stats()).total).toBe(40);
    expect((await target.recall('memory 7 deployments', { k: 1 }))[0]!.memory.content).toBe(
      'Local memory 7 about deployments',
    );
  });
}
