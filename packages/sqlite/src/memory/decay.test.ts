import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AgentMemory,
  InMemoryBackend,
  type JsonObject,
  MEMORY_TYPES,
  type MemoryBackend,
  pruneInstant,
} from '@agentmem/core';
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
    history: history.map((h) => [h.action, h.detail, h.memory]), // the whole memory as each entry recorded it
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
    const pruned = sqlite.history[1]![2] as { id: string; prunedAt: string };
    expect(pruned.prunedAt).toBe(sqlite.states[pruned.id]);
  });
});

/** Runs `beforePage` before the first transaction decay opens (a page is read and pruned in each). */
class InterleavingSqlite extends SqliteBackend {
  beforePage: (() => Promise<unknown>) | undefined;
  override async transaction<T>(fn: () => Promise<T>): Promise<T> {
    const hook = this.beforePage;
    this.beforePage = undefined;
    await hook?.();
    return super.transaction(fn);
  }
}

describe('applyDecay on SQLite with other writers during the run', () => {
  it('sees what another process wrote before a page, judges buffered recalls again, logs each prune', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentmem-decay-'));
    try {
      const path = join(dir, 'memory.db');
      const clock = { now: T0 };
      const backend = new InterleavingSqlite({ path });
      const memory = new AgentMemory({ backend, now: () => clock.now });
      const here = await memory.remember({ content: 'The build cache lives in S3', type: 'project' });
      const elsewhere = await memory.remember({ content: 'Deploys go through Argo', type: 'reference' });
      const updated = await memory.remember({ content: 'Prefers short answers', type: 'user', importance: 0.3 });
      const forgotten = await memory.remember({ content: 'Likes tabs', type: 'feedback' });
      const plain = await memory.remember({ content: 'Works from Lisbon', type: 'user' });
      clock.now = T0 + 1000 * HOUR; // every one of them is far below the threshold
      // Once the pass has begun (its own buffered accesses flushed): another process recalls one memory
      // (written on close), updates one and forgets one; this process recalls one (still buffered).
      backend.beforePage = async () => {
        const other = new AgentMemory({ backend: new SqliteBackend({ path }), now: () => clock.now });
        await other.recall('Deploys Argo', { types: ['reference'] });
        await other.update(updated.id, { importance: 0.9 });
        await other.forget(forgotten.id);
        await other.close();
        await memory.recall('build cache S3', { types: ['project'] });
      };
      const report = await memory.applyDecay(); // (remember's transactions ran before the hook was set)
      // The page is read and pruned in one transaction: the forgotten memory is not scanned, the one
      // recalled elsewhere is scanned as accessed now, the one recalled here is judged again with its access.
      expect(report).toMatchObject({ scanned: 4, pruned: 2, untouched: 2 });
      expect((await memory.get(here.id))?.prunedAt).toBeUndefined();
      expect((await memory.get(elsewhere.id))?.prunedAt).toBeUndefined();
      expect(await memory.get(forgotten.id)).toBeUndefined();
      // Judged on its new importance: pruned at the instant that importance crossed the threshold.
      const now = await memory.get(updated.id);
      expect(now?.importance).toBe(0.9);
      expect(now?.prunedAt).toBe(new Date(pruneInstant(0.9, T0, 168, 0.05)).toISOString());
      for (const id of [updated.id, plain.id]) {
        const history = await memory.history(id);
        const last = history[history.length - 1]!;
        expect(last.action).toBe('prune');
        expect(last.memory).toEqual(await memory.get(id)); // the memory as it was pruned
        const restored = await memory.restore(id);
        expect(restored.prunedAt).toBeUndefined();
        expect(restored).toMatchObject({ id, content: last.memory.content, importance: last.memory.importance });
      }
      await memory.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('decay of memories written before event time existed', () => {
  // Their stored payload has no occurredAt: the prune history entry SQLite copies in SQL must read as the
  // in-memory backend's (occurredAt = createdAt), as every other entry does.
  for (const make of [() => new SqliteBackend({ path: ':memory:' }), () => new InMemoryBackend()])
    it(`keeps history entries whole (${make().constructor.name})`, async () => {
      const backend = make();
      const clock = { now: T0 };
      const memory = new AgentMemory({ backend, now: () => clock.now });
      await memory.init();
      const m = await memory.remember({ content: 'an old fact', type: 'project', importance: 0.2 });
      const [stored] = await backend.get([m.id], { tenant: null, withVectors: true });
      const { occurredAt: _dropped, ...legacy } = stored!.payload as Record<string, unknown>;
      await backend.upsert([{ ...stored!, payload: legacy as JsonObject }]);
      clock.now = T0 + 365 * 24 * HOUR;
      expect((await memory.applyDecay()).pruned).toBe(1);
      const prune = (await memory.history(m.id)).find((e) => e.action === 'prune');
      expect(prune?.memory.occurredAt).toBe(new Date(T0).toISOString());
      expect(prune?.memory.prunedAt).toBeDefined();
      expect(prune?.memory.tags).toEqual([]);
      await memory.close();
    });
});

describe('a process on a version before schema 8', () => {
  it('cannot update or delete a memory whose prune is pending (it would not fold it)', async () => {
    const backend = new SqliteBackend({ path: ':memory:' });
    const clock = { now: T0 };
    const memory = new AgentMemory({ backend, now: () => clock.now });
    const m = await memory.remember({ content: 'an old fact', type: 'project', importance: 0.2 });
    clock.now = T0 + 365 * 24 * HOUR;
    expect((await memory.applyDecay()).pruned).toBe(1);
    // What such a process runs: SQL on records alone.
    const db = backend.database;
    expect(() => db.prepare("UPDATE records SET attr_status = 'active' WHERE id = ?").run(m.id)).toThrow(
      /upgrade this process/,
    );
    expect(() => db.prepare('DELETE FROM records WHERE id = ?').run(m.id)).toThrow(/upgrade this process/);
    // This version folds first: the restore writes, and the prune stays in the history.
    await memory.restore(m.id);
    expect((await memory.history(m.id)).map((e) => e.action)).toEqual(['create', 'prune', 'restore']);
    expect(db.prepare('UPDATE records SET text = text WHERE id = ?').run(m.id).changes).toBe(1);
    await memory.close();
  });
});
