import assert from 'node:assert/strict';
// The package's own name, not relative paths: the built testing entry imports core instead of bundling a copy.
import {
  AgentMemory,
  createEntryId,
  HashingEmbedder,
  isHistoryPending,
  KIND,
  type MemoryBackend,
} from '@agentmem/core';
import type { ConformanceCase, ConformanceOptions } from './conformance';

/** More memories than one page of decay or one write batch of compact (1,000 each). */
const SIZE = 1_100;
const HOUR = 3_600_000;
const T0 = Date.parse('2026-01-01T00:00:00Z');
const WRITES = new Set(['upsert', 'patch', 'patchLogged', 'delete']);
const FAULT = 'injected fault: the process stopped here';

/**
 * The backend behind a switch: after `allow` more write calls every further
 * one throws before it reaches the backend, as if the process had died
 * between two of its requests.
 */
function faultable(backend: MemoryBackend) {
  let allow = Number.POSITIVE_INFINITY;
  const proxy = new Proxy(backend, {
    get(target, key) {
      const value = Reflect.get(target, key, target);
      if (typeof value !== 'function') return value;
      if (typeof key === 'string' && WRITES.has(key)) {
        return async (...args: unknown[]) => {
          if (allow <= 0) throw new Error(FAULT);
          allow--;
          return value.apply(target, args);
        };
      }
      return value.bind(target);
    },
  });
  return {
    backend: proxy,
    allowWrites(n: number) {
      allow = n;
    },
  };
}

/** Every memory's status (and prune instant), and every memory's history actions in order of writing. */
async function stateOf(backend: MemoryBackend) {
  const memories = new Map<string, string>();
  const history = new Map<string, string[]>();
  const rows = new Set<string>();
  const implied: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await backend.scan({ filter: { tenant: null }, cursor, limit: 1000 });
    for (const r of page.records) {
      if (r.attributes.kind === KIND.memory) {
        if (isHistoryPending(r)) implied.push(r.id);
        memories.set(r.id, `${r.attributes.status} ${(r.payload as { prunedAt?: string }).prunedAt ?? ''}`);
      } else if (r.attributes.kind === KIND.history) {
        const id = String(r.attributes.memoryId);
        rows.add(r.id);
        history.set(id, [...(history.get(id) ?? []), String(r.attributes.action)].sort());
      }
    }
    cursor = page.cursor;
  } while (cursor !== undefined);
  // A create entry a record implies (rememberMany's) counts as the row it becomes when folded.
  for (const id of implied) {
    if (!rows.has(createEntryId(id))) history.set(id, [...(history.get(id) ?? []), 'create'].sort());
  }
  return { memories, history };
}

/** How many entries of two maps differ (a short failure message where the maps hold thousands). */
function changed<V>(a: ReadonlyMap<string, V>, b: ReadonlyMap<string, V>): number {
  let n = 0;
  for (const key of new Set([...a.keys(), ...b.keys()]))
    if (JSON.stringify(a.get(key)) !== JSON.stringify(b.get(key))) n++;
  return n;
}

/** With transactions, a cut operation leaves the store exactly as it found it. */
function unchanged(state: Awaited<ReturnType<typeof stateOf>>, before: typeof state, cut: number): void {
  assert.equal(changed(state.memories, before.memories), 0, `cut after ${cut} writes: memories changed`);
  assert.equal(changed(state.history, before.history), 0, `cut after ${cut} writes: history entries changed`);
}

const count = (actions: readonly string[] | undefined, action: string) =>
  (actions ?? []).filter((a) => a === action).length;

/**
 * Runs `operation` with the writes cut off after 0, 1, 2, ... calls until it
 * completes, checking the store after every cut with `check`.
 */
async function cutEverywhere(
  faults: ReturnType<typeof faultable>,
  operation: () => Promise<unknown>,
  check: (state: Awaited<ReturnType<typeof stateOf>>, cut: number) => Promise<void> | void,
): Promise<number> {
  for (let cut = 0; cut < 1000; cut++) {
    faults.allowWrites(cut);
    const failure = await operation().then(
      () => undefined,
      (error: unknown) => error,
    );
    faults.allowWrites(Number.POSITIVE_INFINITY);
    if (failure === undefined) return cut;
    if (!(failure instanceof Error) || !failure.message.includes(FAULT)) throw failure;
    await check(await stateOf(faults.backend), cut);
  }
  throw new Error('the operation never completed');
}

/**
 * Decay and compact over more than a page: with transactions, a failure at
 * any write leaves the store exactly as it was; without, every cut leaves each
 * memory whole (never pruned without its history entry) and running the
 * operation again finishes it with exactly one entry per memory.
 */
export function maintenanceConformanceCases(options: ConformanceOptions): ConformanceCase[] {
  const atomic = options.capabilities.transactions;
  return [
    {
      name: `decay and compact of ${SIZE} memories: a failure at any write ${atomic ? 'leaves all or nothing' : 'is finished by a rerun, one history entry each'}`,
      timeoutMs: 300_000,
      run: async () => {
        const faults = faultable(await options.create());
        const clock = { now: T0 };
        const memory = new AgentMemory({
          backend: faults.backend,
          embedder: new HashingEmbedder({ dimension: 64 }),
          now: () => clock.now,
          halfLifeHours: { user: Number.POSITIVE_INFINITY },
        });
        try {
          // One in twenty is a user memory that never decays; the rest (1,045) are pruned by the pass below.
          const stored = await memory.rememberMany(
            Array.from({ length: SIZE }, (_, i) => ({
              content: `Service ${i % 37} listens on port ${3000 + i}`,
              type: i % 20 === 0 ? ('user' as const) : ('project' as const),
              importance: 0.3 + (i % 7) / 10,
            })),
          );
          const kept = new Set(stored.filter((m) => m.type === 'user').map((m) => m.id));
          clock.now = T0 + 10_000 * HOUR;

          const before = await stateOf(faults.backend);
          const cuts = await cutEverywhere(
            faults,
            () => memory.applyDecay(),
            (state, cut) => {
              if (atomic) unchanged(state, before, cut);
              for (const [id, status] of state.memories) {
                const prunes = count(state.history.get(id), 'prune');
                assert.ok(prunes <= 1, `cut after ${cut} writes: ${id} has ${prunes} prune entries`);
                if (status.startsWith('pruned'))
                  assert.equal(prunes, 1, `cut after ${cut}: ${id} pruned without entry`);
              }
            },
          );
          assert.ok(cuts >= 2, `decay wrote in ${cuts} calls: too few to cut it midway`);
          const decayed = await stateOf(faults.backend);
          for (const [id, status] of decayed.memories) {
            assert.equal(status.split(' ')[0], kept.has(id) ? 'active' : 'pruned', id);
            assert.deepEqual(decayed.history.get(id), kept.has(id) ? ['create'] : ['create', 'prune'], id);
          }

          const pruned = decayed;
          await cutEverywhere(
            faults,
            () => memory.compact(),
            (state, cut) => {
              if (atomic) unchanged(state, pruned, cut);
              for (const id of pruned.memories.keys()) {
                const compacts = count(state.history.get(id), 'compact');
                assert.ok(compacts <= 1, `cut after ${cut} writes: ${id} has ${compacts} compact entries`);
                if (!state.memories.has(id)) assert.equal(compacts, 1, `cut after ${cut}: ${id} gone without entry`);
              }
            },
          );
          const compacted = await stateOf(faults.backend);
          assert.deepEqual([...compacted.memories.keys()].sort(), [...kept].sort());
          for (const id of pruned.memories.keys()) {
            assert.deepEqual(compacted.history.get(id), kept.has(id) ? ['create'] : ['compact', 'create', 'prune'], id);
          }
        } finally {
          await memory.close().catch(() => {});
        }
      },
    },
  ];
}
