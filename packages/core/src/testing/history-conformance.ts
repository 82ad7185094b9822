import assert from 'node:assert/strict';
// The package's own name, not relative paths: the built testing entry imports core instead of bundling a copy.
import {
  AgentMemory,
  contentHash,
  createEntryId,
  HashingEmbedder,
  type HistoryEntry,
  HISTORY_NAMESPACE,
  HISTORY_PENDING,
  KIND,
  type Memory,
  type MemoryBackend,
  type MemoryInput,
  stableId,
} from '@agentmem/core';
import type { ConformanceCase, ConformanceOptions } from './conformance';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const YEAR = 365 * 24 * 3_600_000;

/** One store's view of the case: the memory under test and the store it lives in. */
interface Side {
  memory: AgentMemory;
  backend: MemoryBackend;
  target: Memory;
}

/**
 * A write path applied to a memory; returns the id whose history is compared (the memory's, or
 * another memory's the path touches).
 */
type WritePath = (side: Side) => Promise<string | undefined>;

const CONTENT = 'Deploys freeze on Fridays';
/** Another branch's version of the memory, which a branch merge maps onto the memory's id. */
const REMOTE_CONTENT = 'Deploys freeze on Fridays and Mondays';

/**
 * `rememberMany` writes no history row for a create: the record carries a marker and implies its
 * entry until it first changes (docs/sqlite.md, "Creates without a history row"). Each case creates
 * a memory that way on one backend and with an eager create row on another (as before the marker),
 * changes it by one write path on both, and compares `history(id)` (entry ids aside: the implied
 * entry's is derived). Every backend runs them: the marker is an attribute, which every backend stores.
 */
export function historyConformanceCases(options: ConformanceOptions): ConformanceCase[] {
  const firstPrune: WritePath = async ({ memory, backend, target }) => {
    const marked = (await backend.get([target.id], { tenant: null }))[0]?.attributes[HISTORY_PENDING] === true;
    assert.equal((await memory.applyDecay({ now: T0 + YEAR })).pruned, 1);
    if (marked) {
      // The prune keeps the entry implied: no create row, the marker kept (docs/sqlite.md, decay).
      assert.equal(await historyRows(backend, target.id, 'create'), 0, 'a prune writes no create row');
      const [after] = await backend.get([target.id], { tenant: null });
      assert.equal(after?.attributes[HISTORY_PENDING], true, 'a prune keeps the marker');
    }
    return target.id;
  };
  const paths: [string, WritePath, Partial<MemoryInput>?, CaseOptions?][] = [
    [
      'update of importance (patch)',
      async ({ memory, target }) => (await memory.update(target.id, { importance: 0.9 })).id,
    ],
    [
      'update of content (rewrite, new vector)',
      async ({ memory, target }) => (await memory.update(target.id, { content: 'Deploys run on Tuesdays now' })).id,
    ],
    [
      'update of context (rewrite, kept vector)',
      async ({ memory, target }) => (await memory.update(target.id, { context: 'from the runbook' })).id,
    ],
    [
      'forget',
      async ({ memory, target }) => {
        assert.equal(await memory.forget(target.id), true);
        return target.id;
      },
    ],
    [
      'supersede',
      async ({ memory, target }) => {
        await memory.patchMemories([{ ...target, supersededBy: 'mem_newer' }], 'supersede');
        return target.id;
      },
    ],
    [
      "recall's reinforcement (access patch)",
      async ({ memory, target }) => {
        const hits = await memory.recall('deploys Friday', { k: 3 });
        assert.ok(hits.some((h) => h.memory.id === target.id));
        await memory.flushReinforcement();
        assert.equal((await memory.get(target.id))?.accessCount, 1);
        return target.id;
      },
    ],
    [
      "decay's prune, then restore",
      async ({ memory, target }) => {
        assert.equal((await memory.applyDecay({ now: T0 + YEAR })).pruned, 1);
        await memory.restore(target.id);
        return target.id;
      },
    ],
    ["decay's first prune", firstPrune],
    ["decay's first prune, in a store without an agent id", firstPrune, undefined, { agentId: undefined }],
    [
      "decay's first prune of a page that also holds a memory changed since and one still implied",
      async ({ memory, target }) => {
        const [changed, implied] = await memory.rememberMany([
          { content: 'Backups run nightly', type: 'project', importance: 0.3 },
          { content: 'On-call rotates weekly', type: 'project', importance: 0.4 },
        ]);
        await memory.update(changed!.id, { importance: 0.35 }); // folds its create entry
        assert.equal((await memory.applyDecay({ now: T0 + YEAR })).pruned, 3);
        // The other memory still implied before the prune: its create entry, then the prune.
        const history = await memory.history(implied!.id);
        assert.deepEqual(
          history.map((e) => [e.id === createEntryId(implied!.id), e.action]),
          [
            [true, 'create'],
            [false, 'prune'],
          ],
        );
        assert.deepEqual(history[0]!.memory, implied, 'the create entry holds the memory as created');
        assert.deepEqual(
          (await memory.history(changed!.id)).map((e) => e.action),
          ['create', 'update', 'prune'],
        );
        return target.id;
      },
    ],
    [
      'compact after a prune',
      async ({ memory, target }) => {
        await memory.applyDecay({ now: T0 + YEAR });
        assert.equal((await memory.compact()).removed, 1);
        return target.id;
      },
    ],
    [
      'branch delete',
      async ({ memory, target }) => {
        memory.switchBranch('main');
        assert.equal((await memory.deleteBranch('feature')).deleted, 1);
        return target.id;
      },
    ],
    [
      'a branch merge that overwrites it, and its undo',
      async ({ memory, target }) => {
        memory.switchBranch('other');
        await memory.remember({ content: REMOTE_CONTENT, type: 'project' });
        memory.switchBranch('feature');
        const merged = await memory.mergeBranch('other', { strategy: 'remote_wins' });
        assert.equal(merged.counts.overwritten, 1);
        assert.equal((await memory.get(target.id))?.content, REMOTE_CONTENT);
        await memory.undoMerge(merged.mergeId);
        assert.equal((await memory.get(target.id))?.content, CONTENT);
        return target.id;
      },
      // The id the other branch's version lands under in this branch (a conflict: same id, other content).
      { id: stableId('mem', '', 'project:feature', contentHash(REMOTE_CONTENT)) },
    ],
  ];
  return paths.map(([name, path, input, caseOptions]) => ({
    name: `history: a memory rememberMany created, then ${name}, has the history an eager create row gave`,
    run: () => compareWithEager(options, path, input, caseOptions),
  }));
}

/** How a case's stores are opened (default: agent id `agent-7`). */
interface CaseOptions {
  agentId?: string;
}

async function compareWithEager(
  options: ConformanceOptions,
  path: WritePath,
  extra: Partial<MemoryInput> = {},
  caseOptions: CaseOptions = { agentId: 'agent-7' },
): Promise<void> {
  const { agentId } = caseOptions;
  const backends: MemoryBackend[] = [];
  try {
    const open = async () => {
      const backend = await options.create();
      backends.push(backend);
      // One instant for every write: the entries' times are then equal on both sides.
      const memory = new AgentMemory({
        backend,
        embedder: new HashingEmbedder({ dimension: 64 }),
        ...(agentId ? { agentId } : {}),
        branch: 'feature',
        now: () => T0,
        halfLifeHours: 24,
        reinforcement: { flushIntervalMs: 60_000 },
      });
      await memory.init();
      return { memory, backend };
    };
    const input: MemoryInput = { content: CONTENT, type: 'project', importance: 0.2, tags: ['ops'], ...extra };
    const lazyStore = await open();
    const [created] = await lazyStore.memory.rememberMany([input]);
    const lazy: Side = { ...lazyStore, target: created! };
    const [marked] = await lazy.backend.get([created!.id], { tenant: null, withVectors: false });
    assert.equal(marked?.attributes[HISTORY_PENDING], true, 'the backend keeps the marker attribute');
    assert.equal(await historyRows(lazy.backend, created!.id), 0, 'rememberMany writes no create row');
    const implied = await lazy.memory.history(created!.id);
    assert.deepEqual(
      implied.map((e) => [e.id, e.action, e.at, e.agentId]),
      [[createEntryId(created!.id), 'create', created!.createdAt, agentId]],
    );
    assert.deepEqual(implied[0]!.memory, created);

    const eagerStore = await open();
    const [vector] = await eagerStore.memory.embedDocuments([created!.content]);
    await eagerStore.memory.writeMemories([{ memory: created!, vector: vector! }], 'create');
    const eager: Side = { ...eagerStore, target: created! };

    const id = await path(lazy);
    assert.equal(await path(eager), id);
    const lazyHistory = await lazy.memory.history(id!);
    assert.deepEqual(comparable(lazyHistory), comparable(await eager.memory.history(id!)));
    // One source of the create entry: a row (folded by the change, with the memory as created) and no
    // marker, or the marker and no row (a prune, or an undo that put the record back exactly as it was).
    const rows = await historyRows(lazy.backend, id!, 'create');
    const [after] = await lazy.backend.get([id!], { tenant: null, withVectors: false });
    const still = after?.attributes[HISTORY_PENDING] === true;
    assert.equal(rows, still ? 0 : 1, still ? 'a marked memory has no create row' : 'the change folded the entry');
    if (still) {
      // A prune keeps the marker: the record without prunedAt is the memory as created.
      const { prunedAt: _, ...unpruned } = after!.payload;
      assert.deepEqual(unpruned, created, 'only a memory unchanged but for a prune is marked');
    }
    assert.deepEqual(lazyHistory[0], implied[0], 'the create entry is the implied one');
  } finally {
    for (const b of backends) await b.close().catch(() => {});
  }
}

/**
 * Entries without their ids (an implied entry's id is derived; a written one's is new each time), and
 * with merge ids (new on each side) replaced by one placeholder.
 */
function comparable(entries: readonly HistoryEntry[]): unknown {
  return JSON.parse(JSON.stringify(entries.map(({ id: _, ...rest }) => rest)).replace(/merge_[0-9a-z]+/gi, 'merge_'));
}

async function historyRows(backend: MemoryBackend, memoryId: string, action?: string): Promise<number> {
  return backend.count({
    tenant: null,
    namespaces: [HISTORY_NAMESPACE],
    where: { kind: KIND.history, memoryId, ...(action ? { action } : {}) },
  });
}
