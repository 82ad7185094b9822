import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AgentMemory } from '../agent-memory';
import { InMemoryBackend } from '../backends';
import type { Memory, MemoryType } from '../contracts';
import { MEMORY_TYPES } from '../scope';
import { effectiveImportance, halfLifeFor, pruneInstant } from '../importance';

const HOUR = 3_600_000;
const T0 = Date.parse('2026-01-01T00:00:00Z');
const HALF_LIVES = { user: 24 * 30, feedback: 168, project: 72, reference: 24 };
const THRESHOLD = 0.05;

interface Seed {
  importance: number;
  type: MemoryType;
  createdHours: number;
}

const seedArb = fc.record({
  importance: fc.double({ min: 0, max: 1, noNaN: true }),
  type: fc.constantFrom(...MEMORY_TYPES),
  createdHours: fc.integer({ min: 0, max: 500 }),
});
// Decay runs and accesses happen after every memory exists.
const instantArb = fc.integer({ min: 500 * 60, max: 3000 * 60 }).map((minutes) => T0 + minutes * 60_000);

/** Each memory in a namespace of its own, so that a recall touches exactly that one. */
async function storeWith(seeds: readonly Seed[]) {
  const clock = { now: T0 };
  const memory = new AgentMemory({ backend: new InMemoryBackend(), now: () => clock.now, halfLifeHours: HALF_LIVES });
  const ids: string[] = [];
  for (const [i, s] of seeds.entries()) {
    clock.now = T0 + s.createdHours * HOUR;
    const m = await memory.remember({
      content: content(i),
      type: s.type,
      importance: s.importance,
      namespace: `prop-${i}`,
    });
    ids.push(m.id);
  }
  return { memory, clock, ids };
}

const content = (i: number) => `remember token${i}xq about item${i}zz`;

async function state(memory: AgentMemory): Promise<Memory[]> {
  const all: Memory[] = [];
  for await (const m of memory.memories({ includeInactive: true, allTenants: true })) all.push(m);
  return all.sort((a, b) => (a.id < b.id ? -1 : 1));
}

describe('decay is a function of time, not of how often it runs', () => {
  it('running twice at the same instant changes nothing the second time', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(seedArb, { minLength: 1, maxLength: 6 }), instantArb, async (seeds, at) => {
        const { memory } = await storeWith(seeds);
        await memory.applyDecay({ now: at });
        const after = await state(memory);
        const second = await memory.applyDecay({ now: at });
        expect(second.pruned).toBe(0);
        expect(await state(memory)).toEqual(after);
      }),
    );
  });

  it('runs at t1 < t2 < ... < tn leave the same state as one run at tn', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(seedArb, { minLength: 1, maxLength: 6 }),
        fc.array(instantArb, { minLength: 1, maxLength: 6 }),
        async (seeds, instants) => {
          const times = [...instants].sort((a, b) => a - b);
          const often = await storeWith(seeds);
          for (const t of times) await often.memory.applyDecay({ now: t });
          const once = await storeWith(seeds);
          await once.memory.applyDecay({ now: times[times.length - 1]! });
          expect(await state(often.memory)).toEqual(await state(once.memory));
        },
      ),
    );
  });

  it('a recall in between restarts the clock of what it returned', async () => {
    const eventArb = fc.oneof(
      fc.record({ kind: fc.constant('decay' as const), at: instantArb }),
      fc.record({ kind: fc.constant('access' as const), at: instantArb, index: fc.nat({ max: 5 }) }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(seedArb, { minLength: 1, maxLength: 6 }),
        fc.array(eventArb, { minLength: 1, maxLength: 12 }),
        async (seeds, unsorted) => {
          const events = [...unsorted].sort((a, b) => a.at - b.at);
          const { memory, clock, ids } = await storeWith(seeds);
          // The model: the clock of a memory restarts at each access while it is in recall.
          const model = seeds.map((s) => ({
            ...s,
            lastAccess: T0 + s.createdHours * HOUR,
            prunedAt: undefined as number | undefined,
          }));
          for (const e of events) {
            if (e.kind === 'decay') {
              await memory.applyDecay({ now: e.at });
              for (const m of model) {
                const h = halfLifeFor(m.type, HALF_LIVES);
                if (m.prunedAt === undefined && effectiveImportance(m.importance, m.lastAccess, e.at, h) < THRESHOLD) {
                  m.prunedAt = Math.min(e.at, pruneInstant(m.importance, m.lastAccess, h, THRESHOLD));
                }
              }
            } else {
              const i = e.index % seeds.length;
              clock.now = e.at;
              const hits = await memory.recall(content(i), { namespaces: [`prop-${i}`], k: 1 });
              const m = model[i]!;
              expect(hits.map((h) => h.memory.id)).toEqual(m.prunedAt === undefined ? [ids[i]] : []);
              if (m.prunedAt === undefined) m.lastAccess = e.at;
            }
          }
          for (const [i, m] of model.entries()) {
            const stored = (await memory.get(ids[i]!))!;
            expect(stored.lastAccessedAt).toBe(new Date(m.lastAccess).toISOString());
            expect(stored.prunedAt).toBe(m.prunedAt === undefined ? undefined : new Date(m.prunedAt).toISOString());
            expect(stored.importance).toBe(m.importance);
          }
        },
      ),
    );
  });
});
