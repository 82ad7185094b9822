import { AgentMemory, InMemoryBackend, MEMORY_TYPES, type MemoryBackend } from '@agentmem/core';
import { seededRandom } from '@agentmem/core/testing';
import { describe, expect, it } from 'vitest';
import { SqliteBackend } from '../backend';

const HOUR = 3_600_000;
const T0 = Date.parse('2026-01-01T00:00:00Z');

/** 1,200 memories remembered over ten weeks, then one decay pass: the same outcome on SQLite (attribute scan,
 * batched patches) as on the in-memory backend (full scan, a patch per record). */
async function decayed(backend: MemoryBackend) {
  const clock = { now: T0 };
  const memory = new AgentMemory({ backend, now: () => clock.now });
  await memory.init();
  const random = seededRandom(5);
  const ids: string[] = [];
  for (let week = 0; week < 10; week++) {
    clock.now = T0 + week * 168 * HOUR;
    const batch = Array.from({ length: 120 }, (_, i) => ({
      content: `fact ${week}-${i} about module ${i % 37}`,
      type: MEMORY_TYPES[i % MEMORY_TYPES.length]!,
      importance: 0.1 + 0.9 * random(),
    }));
    ids.push(...(await memory.rememberMany(batch)).map((m) => m.id));
  }
  clock.now = T0 + 12 * 168 * HOUR;
  const report = await memory.applyDecay();
  const again = await memory.applyDecay();
  const states: Record<string, string | undefined> = {};
  for (const id of ids) states[id] = (await memory.get(id))?.prunedAt;
  const pruned = Object.keys(states).filter((id) => states[id]);
  const history = await memory.history(pruned[0]!);
  await memory.close();
  return {
    report: { ...report, durationMs: 0 },
    again: { ...again, durationMs: 0 },
    states,
    history: history.map((h) => [h.action, h.memory.prunedAt]),
  };
}

describe('applyDecay on SQLite', () => {
  it('prunes exactly what the in-memory backend prunes, with the same prune instants and history', async () => {
    const sqlite = await decayed(new SqliteBackend({ path: ':memory:' }));
    const memory = await decayed(new InMemoryBackend());
    expect(sqlite.report.pruned).toBeGreaterThan(100);
    expect(sqlite.report.decayed).toBeGreaterThan(100);
    expect(sqlite).toEqual(memory);
    expect(sqlite.again.pruned).toBe(0);
    expect(sqlite.history[1]?.[0]).toBe('prune');
  });
});
