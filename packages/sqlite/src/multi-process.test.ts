import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { createSqliteMemory } from './memory';

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
const writer = fileURLToPath(new URL('./test-fixtures/concurrent-writer.ts', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'agentmem-sqlite-mp-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Child {
  ready: Promise<void>;
  done: Promise<{ code: number | null; stdout: string; stderr: string }>;
  go: () => void;
}

function startWriter(path: string, worker: number, count: number, mode = 'own'): Child {
  const child = spawn(process.execPath, ['--import', 'tsx', writer, path, String(worker), String(count), mode], {
    cwd: repoRoot,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let markReady!: () => void;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    if (stdout.includes('ready\n')) markReady();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    child.on('close', (code) => {
      markReady(); // a child that died early must not hang the barrier
      resolve({ code, stdout, stderr });
    });
  });
  return { ready, done, go: () => child.stdin.write('go\n') };
}

describe('several processes writing one file', () => {
  it('three processes each write 200 memories concurrently: all 600 arrive, no SQLITE_BUSY, the file is sound', async () => {
    const path = join(dir, 'shared', 'memory.db');
    const children = [1, 2, 3].map((w) => startWriter(path, w, 200));
    await Promise.all(children.map((c) => c.ready)); // all opened (and raced to create the schema)
    for (const c of children) c.go();
    const results = await Promise.all(children.map((c) => c.done));
    for (const r of results) {
      expect(r.stderr).not.toMatch(/SQLITE_BUSY|locked/i);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/"written":200/);
    }

    const raw = new Database(path);
    try {
      expect(raw.pragma('integrity_check', { simple: true })).toBe('ok');
      expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
      // Every memory's text arrived (the keyword index is built from it); history rows have none.
      const withText = raw.prepare("SELECT count(*) AS n FROM records WHERE text <> ''").get() as { n: number };
      expect(withText.n).toBe(600);
    } finally {
      raw.close();
    }
    const memory = await createSqliteMemory({ path });
    try {
      const all = [];
      for await (const m of memory.memories()) all.push(m);
      expect(all).toHaveLength(600);
      expect(new Set(all.map((m) => m.agentId))).toEqual(new Set(['worker-1', 'worker-2', 'worker-3']));
      // One create entry each (implied by the record until the memory first changes), by the writer's agent.
      for (const m of all) {
        const history = await memory.history(m.id);
        expect(history.map((h) => [h.action, h.agentId])).toEqual([['create', m.agentId]]);
      }
      const [hit] = await memory.recall('worker 2 observation number 117', { k: 1 });
      expect(hit?.memory.content).toBe('Worker 2 observation number 117: build step 819 passed');
    } finally {
      await memory.close();
    }
  }, 120_000);

  it('four processes write the same 100 facts at once: 100 memories, each with exactly one create entry', async () => {
    const path = join(dir, 'same', 'memory.db');
    const children = [1, 2, 3, 4].map((w) => startWriter(path, w, 100, 'shared'));
    await Promise.all(children.map((c) => c.ready));
    for (const c of children) c.go();
    for (const r of await Promise.all(children.map((c) => c.done))) expect(r.code, r.stderr).toBe(0);
    const memory = await createSqliteMemory({ path });
    try {
      const all = [];
      for await (const m of memory.memories()) all.push(m);
      expect(all).toHaveLength(100);
      const creates = await Promise.all(all.map(async (m) => (await memory.history(m.id)).map((h) => h.action)));
      expect(creates.filter((actions) => actions.join() !== 'create')).toEqual([]);
    } finally {
      await memory.close();
    }
  }, 120_000); // as above: four child processes that each start tsx are slow on a loaded 2-core machine

  it('two processes write during a decay and a compact of 1,500 memories (one transaction each): every write waits and lands', async () => {
    const path = join(dir, 'maintenance', 'memory.db');
    const old = Date.parse('2020-01-01T00:00:00Z');
    const seeded = await createSqliteMemory({ path, branch: 'main', now: () => old });
    await seeded.rememberMany(
      Array.from({ length: 1500 }, (_, i) => ({
        content: `Old fact ${i}: job ${i % 13} ran`,
        type: 'project' as const,
      })),
    );
    await seeded.close();
    const children = [1, 2].map((w) => startWriter(path, w, 50));
    await Promise.all(children.map((c) => c.ready));
    const memory = await createSqliteMemory({ path, branch: 'main' });
    try {
      for (const c of children) c.go();
      // A year on for the old facts; the writers' memories are accessed later than that: they stay.
      const decay = await memory.applyDecay({ now: '2021-01-01T00:00:00Z' });
      const compact = await memory.compact();
      for (const r of await Promise.all(children.map((c) => c.done))) {
        expect(r.stderr).not.toMatch(/SQLITE_BUSY|locked|TIMEOUT/i);
        expect(r.code, r.stderr).toBe(0);
        expect(r.stdout).toMatch(/"written":50/);
      }
      expect(decay.pruned).toBe(1500);
      expect(compact.removed).toBe(1500);
      const left = [];
      for await (const m of memory.memories({ includeInactive: true })) left.push(m);
      expect(left).toHaveLength(100);
      expect(left.every((m) => m.prunedAt === undefined && m.content.startsWith('Worker '))).toBe(true);
    } finally {
      await memory.close();
    }
    const raw = new Database(path);
    try {
      expect(raw.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      raw.close();
    }
  }, 180_000);
});
