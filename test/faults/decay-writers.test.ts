import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createSqliteMemory } from '@agentmem/sqlite';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';

// Decay and compact are one write transaction each, however large the store: writers in other
// processes wait for the pass (within their busy timeout) instead of failing or slipping into it.
const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const writer = fileURLToPath(new URL('../../packages/sqlite/src/test-fixtures/concurrent-writer.ts', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'agentmem-decay-writers-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A writer process (the multi-process test's): says ready, writes `count` memories after "go". */
function startWriter(path: string, worker: number, count: number) {
  const child = spawn(process.execPath, ['--import', 'tsx', writer, path, String(worker), String(count), 'own'], {
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
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code) => {
      markReady();
      resolve({ code, stdout, stderr });
    }),
  );
  return { ready, done, go: () => child.stdin.write('go\n') };
}

describe('decay and compact while other processes write', () => {
  it('3,000 memories pruned and removed in one pass each while two processes write: every write lands, none is lost or half-pruned', async () => {
    const path = join(dir, 'memory.db');
    const old = Date.parse('2020-01-01T00:00:00Z');
    const seeded = await createSqliteMemory({ path, branch: 'main', now: () => old });
    await seeded.rememberMany(
      Array.from({ length: 3000 }, (_, i) => ({
        content: `Old fact ${i}: job ${i % 13} ran`,
        type: 'project' as const,
      })),
    );
    await seeded.close();

    const writers = [1, 2].map((w) => startWriter(path, w, 100));
    await Promise.all(writers.map((w) => w.ready));
    // A year later for the old facts; the writers' memories are accessed now, after that instant: they stay.
    const memory = await createSqliteMemory({ path, branch: 'main' });
    try {
      for (const w of writers) w.go();
      const decay = await memory.applyDecay({ now: '2021-01-01T00:00:00Z' });
      const compact = await memory.compact();
      const results = await Promise.all(writers.map((w) => w.done));
      for (const r of results) {
        expect(r.stderr).not.toMatch(/SQLITE_BUSY|locked|TIMEOUT/i);
        expect(r.code, r.stderr).toBe(0);
        expect(r.stdout).toMatch(/"written":100/);
      }
      expect(decay.pruned).toBe(3000);
      expect(compact.removed).toBe(3000);
      const left = [];
      for await (const m of memory.memories({ includeInactive: true })) left.push(m);
      expect(left).toHaveLength(200);
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
