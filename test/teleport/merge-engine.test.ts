import { AgentMemoryError, applyMerge, type MergeStrategy, planMerge } from '@agentmem/core';
import { FakeEmbedder } from '@agentmem/core/testing';
import { describe, expect, it } from 'vitest';
import { clock, FailingBackend, fullState, memoryStore, sourceOf } from './helpers';

/** Local and remote stores sharing some records, with two conflicting ids edited at different times. */
async function scenario() {
  const localClock = clock();
  const remoteClock = clock();
  const local = await memoryStore({ now: localClock, agentId: 'agent-a' });
  const remote = await memoryStore({ now: remoteClock, agentId: 'agent-b' });
  // Shared starting point: the same three memories with the same ids on both sides.
  const shared = [
    { id: 'mem_shared1', content: 'The API uses JWT tokens for auth', type: 'project' as const },
    { id: 'mem_shared2', content: 'Deploys run on Fridays only', type: 'project' as const },
    { id: 'mem_shared3', content: 'Use pnpm, not npm', type: 'feedback' as const },
  ];
  await local.rememberMany(shared);
  await remote.rememberMany(shared);
  // Conflicts: mem_shared1 edited later on the remote side, mem_shared2 edited later locally.
  localClock.set('2026-01-02T00:00:00Z');
  remoteClock.set('2026-01-03T00:00:00Z');
  await remote.update('mem_shared1', { content: 'The API uses OAuth2 with PKCE for auth' });
  await local.update('mem_shared1', { content: 'The API uses session cookies for auth' });
  remoteClock.set('2026-01-02T00:00:00Z');
  localClock.set('2026-01-04T00:00:00Z');
  await remote.update('mem_shared2', { content: 'Deploys run on Mondays' });
  await local.update('mem_shared2', { content: 'Deploys run any weekday after review' });
  // A new finding on the remote side, and the same content under another id.
  const finding = await remote.remember({ content: 'The login endpoint is rate limited to 10 rpm', type: 'project' });
  await local.remember({ content: 'User prefers short answers', type: 'user', id: 'mem_local_pref' });
  await remote.remember({ content: 'user prefers SHORT answers', type: 'user', id: 'mem_remote_pref' });
  return { local, remote, finding, localClock, remoteClock };
}

describe('merge engine: plan', () => {
  it('classifies new records, duplicates by id and by content, and conflicts with both versions', async () => {
    const { local, remote, finding } = await scenario();
    const before = await fullState(local.backend);
    const plan = await planMerge(local, sourceOf(remote));
    expect(plan.imports.map((i) => i.remote.id)).toEqual([finding.id]);
    expect(plan.duplicates).toEqual(
      expect.arrayContaining([
        { remoteId: 'mem_shared3', localId: 'mem_shared3', namespace: 'feedback', reason: 'same-id' },
        { remoteId: 'mem_remote_pref', localId: 'mem_local_pref', namespace: 'user', reason: 'same-content' },
      ]),
    );
    expect(plan.duplicates).toHaveLength(2);
    const byId = Object.fromEntries(plan.conflicts.map((c) => [c.id, c]));
    expect(byId.mem_shared1!.newer).toBe('remote');
    expect(byId.mem_shared1!.local.memory!.content).toBe('The API uses session cookies for auth');
    expect(byId.mem_shared1!.remote.memory!.content).toBe('The API uses OAuth2 with PKCE for auth');
    expect(byId.mem_shared1!.remote.memory!.updatedAt).toBe('2026-01-03T00:00:00.000Z');
    expect(byId.mem_shared2!.newer).toBe('local');
    expect(await fullState(local.backend)).toEqual(before);
  });

  it('limits the plan to the given namespaces, with prefix patterns', async () => {
    const { local, remote } = await scenario();
    const plan = await planMerge(local, sourceOf(remote), { namespaces: ['project:*'] });
    expect(plan.namespaces).toEqual(['project:main']);
    expect(plan.duplicates).toHaveLength(0);
    await expect(planMerge(local, sourceOf(remote), { namespaces: ['_history'] })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
  });
});

describe('merge engine: strategies', () => {
  const expected: Record<
    MergeStrategy,
    { shared1: string; shared2: string; overwritten: number; keptLocal: number; keptBoth: number }
  > = {
    local_wins: {
      shared1: 'The API uses session cookies for auth',
      shared2: 'Deploys run any weekday after review',
      overwritten: 0,
      keptLocal: 2,
      keptBoth: 0,
    },
    remote_wins: {
      shared1: 'The API uses OAuth2 with PKCE for auth',
      shared2: 'Deploys run on Mondays',
      overwritten: 2,
      keptLocal: 0,
      keptBoth: 0,
    },
    newer_wins: {
      shared1: 'The API uses OAuth2 with PKCE for auth',
      shared2: 'Deploys run any weekday after review',
      overwritten: 1,
      keptLocal: 1,
      keptBoth: 0,
    },
    keep_both: {
      shared1: 'The API uses session cookies for auth',
      shared2: 'Deploys run any weekday after review',
      overwritten: 0,
      keptLocal: 0,
      keptBoth: 2,
    },
  };

  for (const strategy of Object.keys(expected) as MergeStrategy[]) {
    it(`${strategy}: resolves conflicts by its rule, records provenance, and undo restores the exact state`, async () => {
      const { local, remote, finding, localClock } = await scenario();
      const before = await fullState(local.backend);
      const plan = await planMerge(local, sourceOf(remote, 'agent-b.db'));
      const result = await applyMerge(local, sourceOf(remote, 'agent-b.db'), plan, { strategy });
      const want = expected[strategy];
      expect(result.counts).toMatchObject({
        duplicates: 2,
        conflicts: 2,
        overwritten: want.overwritten,
        keptLocal: want.keptLocal,
        keptBoth: want.keptBoth,
        imported: 1,
      });
      expect((await local.get('mem_shared1'))!.content).toBe(want.shared1);
      expect((await local.get('mem_shared2'))!.content).toBe(want.shared2);
      const imported = (await local.get(finding.id))!;
      expect(imported).toMatchObject({ mergedFrom: 'agent-b.db', mergeId: result.mergeId, agentId: 'agent-b' });
      expect((await local.history(finding.id)).map((h) => h.action)).toEqual(['merge_import']);
      if (want.overwritten > 0) {
        expect(await local.get('mem_shared1')).toMatchObject({ mergeId: result.mergeId, mergedFrom: 'agent-b.db' });
      }
      if (strategy === 'keep_both') {
        const copies = [];
        for await (const m of local.memories()) if (m.metadata.mergeConflictOf) copies.push(m);
        expect(copies.map((m) => [m.metadata.mergeConflictOf, m.content]).sort()).toEqual([
          ['mem_shared1', 'The API uses OAuth2 with PKCE for auth'],
          ['mem_shared2', 'Deploys run on Mondays'],
        ]);
        expect(copies.every((m) => m.mergeId === result.mergeId && m.namespace === 'project:main')).toBe(true);
      }
      expect(result.summary()).toContain('Imported: 1 new memory / Skipped: 2 duplicates / Conflicts: 2');

      localClock.set('2026-02-01T00:00:00Z');
      const undo = await local.undoMerge(result.mergeId);
      expect(undo.removed).toBe(1 + want.keptBoth);
      expect(undo.restored).toBe(want.overwritten);
      const after = await fullState(local.backend);
      // Everything is as before, plus history (merge_import, undo) and the merge record marked undone.
      const visible = (s: typeof before) =>
        (s.records as { namespace: string }[]).filter((r) => r.namespace !== '_history' && r.namespace !== '_merges');
      expect(visible(after)).toEqual(visible(before));
      expect((await local.history(finding.id)).map((h) => h.action)).toEqual(['merge_import', 'undo']);
      expect((await local.listMerges())[0]).toMatchObject({ id: result.mergeId, status: 'undone' });
      await expect(local.undoMerge(result.mergeId)).rejects.toMatchObject({ code: 'CONFLICT' });
    });
  }

  it('newer_wins keeps local on a timestamp tie', async () => {
    const local = await memoryStore({ now: clock() });
    const remote = await memoryStore({ now: clock() });
    await local.remember({ id: 'mem_t', content: 'Tie local version', type: 'user' });
    await remote.remember({ id: 'mem_t', content: 'Tie remote version', type: 'user' });
    const plan = await planMerge(local, sourceOf(remote));
    expect(plan.conflicts[0]!.newer).toBe('tie');
    const result = await applyMerge(local, sourceOf(remote), plan);
    expect(result.strategy).toBe('newer_wins');
    expect(result.counts.keptLocal).toBe(1);
    expect((await local.get('mem_t'))!.content).toBe('Tie local version');
  });

  it('applyMerge honours commitEvery: one merge per part, the counts added up', async () => {
    const { local, remote } = await scenario();
    const plan = await planMerge(local, sourceOf(remote));
    const parts = plan.imports.length + plan.conflicts.length;
    const result = await applyMerge(local, sourceOf(remote), plan, { strategy: 'remote_wins', commitEvery: 1 });
    expect(result.mergeIds).toHaveLength(parts);
    expect(result.counts.imported + result.counts.overwritten).toBe(parts);
    expect((await local.listMerges()).length).toBe(parts);
  });

  it('re-merging the same source imports nothing the second time', async () => {
    const { local, remote } = await scenario();
    const first = await applyMerge(local, sourceOf(remote), await planMerge(local, sourceOf(remote)), {
      strategy: 'remote_wins',
    });
    expect(first.counts.imported).toBe(1);
    const second = await applyMerge(local, sourceOf(remote), await planMerge(local, sourceOf(remote)), {
      strategy: 'remote_wins',
    });
    expect(second.counts).toMatchObject({ imported: 0, conflicts: 0, overwritten: 0 });
    expect(second.summary()).toBe('Imported: 0 new memories / Skipped: 5 duplicates / Conflicts: 0');
  });

  it('keep_both: re-merging the same source does not copy the remote version again', async () => {
    const { local, remote } = await scenario();
    const first = await applyMerge(local, sourceOf(remote), await planMerge(local, sourceOf(remote)), {
      strategy: 'keep_both',
    });
    expect(first.counts.keptBoth).toBe(2);
    const before = await fullState(local.backend);
    const second = await applyMerge(local, sourceOf(remote), await planMerge(local, sourceOf(remote)), {
      strategy: 'keep_both',
    });
    expect(second.counts).toMatchObject({ imported: 0, conflicts: 0, keptBoth: 0 });
    const visible = (s: typeof before) =>
      (s.records as { namespace: string }[]).filter((r) => r.namespace !== '_history' && r.namespace !== '_merges');
    expect(visible(await fullState(local.backend))).toEqual(visible(before));
  });

  it('rejects an unknown strategy before writing anything', async () => {
    const { local, remote } = await scenario();
    const before = await fullState(local.backend);
    const plan = await planMerge(local, sourceOf(remote));
    await expect(
      applyMerge(local, sourceOf(remote), plan, { strategy: 'mine' as MergeStrategy }),
    ).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    expect(await fullState(local.backend)).toEqual(before);
  });
});

describe('merge engine: all or nothing', () => {
  it('a failure midway (3rd upsert of 1,250 imports) leaves the store exactly as it was', async () => {
    const backend = new FailingBackend();
    const local = await memoryStore({ backend });
    await local.rememberMany([{ id: 'mem_shared', content: 'Local version', type: 'user' }]);
    const remote = await memoryStore();
    await remote.rememberMany([{ id: 'mem_shared', content: 'Remote version', type: 'user' }]);
    await remote.rememberMany(
      Array.from({ length: 1250 }, (_, i) => ({ content: `Remote fact number ${i}`, type: 'project' as const })),
    );
    const before = await fullState(backend);
    const plan = await planMerge(local, sourceOf(remote));
    expect(plan.imports).toHaveLength(1250);
    backend.failOn = backend.upserts + 3; // merge record, first batch, then the failure
    await expect(applyMerge(local, sourceOf(remote), plan, { strategy: 'remote_wins' })).rejects.toThrow(
      /injected failure/,
    );
    expect(await fullState(backend)).toEqual(before);
    expect(await local.listMerges()).toEqual([]);
  });

  /** A local store on a backend without transactions, one conflicting and 600 new remote memories, and the plan. */
  async function mergeWithoutTransactions() {
    const backend = new FailingBackend();
    Object.assign(backend, { capabilities: { ...backend.capabilities, transactions: false }, transaction: undefined });
    const local = await memoryStore({ backend });
    await local.rememberMany([{ id: 'mem_shared', content: 'Local version', type: 'user' }]);
    const remote = await memoryStore();
    await remote.rememberMany([{ id: 'mem_shared', content: 'Remote version', type: 'user' }]);
    await remote.rememberMany(
      Array.from({ length: 600 }, (_, i) => ({ content: `Remote fact number ${i}`, type: 'project' as const })),
    );
    const before = await fullState(backend);
    const plan = await planMerge(local, sourceOf(remote));
    return { backend, local, remote, before, plan };
  }

  it('on a backend without transactions, a failure is compensated and the store restored', async () => {
    const { backend, local, remote, before, plan } = await mergeWithoutTransactions();
    backend.failOn = backend.upserts + 4; // the conflict overwrite lands in the second batch
    await expect(applyMerge(local, sourceOf(remote), plan, { strategy: 'remote_wins' })).rejects.toThrow(
      /injected failure/,
    );
    // Exactly as before: no imported memory, no merge record, no history entry of the failed merge.
    expect(await fullState(backend)).toEqual(before);
    expect((await local.get('mem_shared'))!.content).toBe('Local version');
    const left = [];
    for await (const m of local.memories()) left.push(m.id);
    expect(left).toEqual(['mem_shared']);
  });

  it('on a backend without transactions that goes away midway, the error names the merge to undo, and undo restores', async () => {
    const { backend, local, remote, before, plan } = await mergeWithoutTransactions();
    backend.failOn = backend.upserts + 4; // after the first batch (500 imports) was written
    backend.staysDown = true;
    const error = await applyMerge(local, sourceOf(remote), plan, { strategy: 'remote_wins' }).catch((e) => e);
    expect(AgentMemoryError.hasCode(error, 'BACKEND_ERROR')).toBe(true);
    const mergeId = (error as AgentMemoryError).details.mergeId as string;
    expect((error as Error).message).toContain(`agentmem undo-merge ${mergeId}`);
    backend.down = false;
    await local.undoMerge(mergeId);
    const visible = (s: typeof before) =>
      (s.records as { namespace: string }[]).filter((r) => r.namespace !== '_history' && r.namespace !== '_merges');
    expect(visible(await fullState(backend))).toEqual(visible(before));
  });
});

describe('merge engine: embedders', () => {
  it('refuses a source built with another embedder unless asked to re-embed, and never copies its vectors', async () => {
    const local = await memoryStore({ embedder: new FakeEmbedder({ id: 'local-model', dimension: 32 }) });
    const remote = await memoryStore({ embedder: new FakeEmbedder({ id: 'other-model', dimension: 16 }) });
    await remote.rememberMany([
      { content: 'Staging database is on port 5433', type: 'project' },
      { content: 'Prefers tabs', type: 'user' },
    ]);
    const before = await fullState(local.backend);
    const plan = await planMerge(local, sourceOf(remote));
    expect(plan.embedderMismatch).toBe(true);
    const refused = await applyMerge(local, sourceOf(remote), plan).catch((e: unknown) => e);
    expect(AgentMemoryError.hasCode(refused, 'EMBEDDER_MISMATCH')).toBe(true);
    expect((refused as Error).message).toContain('reembed');
    expect(await fullState(local.backend)).toEqual(before);

    const result = await applyMerge(local, sourceOf(remote), plan, { reembed: true });
    expect(result.counts.reembedded).toBe(2);
    expect(result.cost.embeddingCalls).toBe(1);
    expect(result.summary()).toContain('Re-embedded: 2');
    const hits = await local.recall('staging database port', { k: 1 });
    expect(hits[0]!.memory.content).toBe('Staging database is on port 5433');
    const [record] = await local.backend.get([hits[0]!.memory.id], { tenant: null, withVectors: true });
    expect(record!.vector!.length).toBe(32);
  });
});
