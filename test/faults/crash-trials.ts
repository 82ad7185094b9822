/**
 * kill -9 during merge, import, decay, compact and undo-merge: after each
 * kill the file must pass SQLite's integrity check and hold exactly the state
 * before or the state after the operation (never a part of it), and no
 * record that both states hold may be missing.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { main } from '@agentmem/cli';
import { createSqliteMemory } from '@agentmem/sqlite';
import Database from 'better-sqlite3';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const child = fileURLToPath(new URL('./crash-child.ts', import.meta.url));
const FAR_FUTURE = '2036-01-01T00:00:00Z';

export interface CrashResult {
  operation: string;
  trials: number;
  /** Trials where the kill landed while the operation ran (the rest finished first). */
  interrupted: number;
  failures: number;
  recordsLost: number;
  halfApplied: number;
  notes: string[];
}

/** A result with no trials yet, for one operation. */
export function emptyResult(operation: string): CrashResult {
  return { operation, trials: 0, interrupted: 0, failures: 0, recordsLost: 0, halfApplied: 0, notes: [] };
}

/** A seeded uniform [0, 1) generator (a linear congruence), so a fault run can be repeated from its seed. */
export function seededRandom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

async function cli(...argv: string[]): Promise<void> {
  let err = '';
  const code = await main(argv, { stdout: () => {}, stderr: (t) => (err += t), isTTY: false });
  if (code !== 0) throw new Error(`agentmem ${argv.join(' ')} failed: ${err}`);
}

/** Every memory of every tenant, with its status and content: what "the state" means here. */
async function fingerprint(path: string): Promise<Map<string, string>> {
  const memory = await createSqliteMemory({ path, branch: 'main' });
  try {
    const out = new Map<string, string>();
    for await (const m of memory.memories({ includeInactive: true, allTenants: true })) {
      out.set(m.id, `${m.prunedAt ?? ''}\u0000${m.supersededBy ?? ''}\u0000${m.content}`);
    }
    return out;
  } finally {
    await memory.close();
  }
}

export function integrity(path: string): string {
  const db = new Database(path);
  try {
    return String(db.pragma('integrity_check', { simple: true }));
  } finally {
    db.close();
  }
}

function same(a: Map<string, string>, b: Map<string, string>): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) if (b.get(k) !== v) return false;
  return true;
}

interface Operation {
  name: string;
  /** The store the operation starts from. */
  base: string;
  argv: (db: string) => string[];
}

/** Builds the stores and files the operations need, in `dir`. */
async function prepare(dir: string, size: number): Promise<Operation[]> {
  const base = join(dir, 'base.db');
  // Half user memories (never decay), half project memories (decay and get pruned).
  const lines = (prefix: string, n: number, only?: string) =>
    Array.from({ length: n }, (_, i) =>
      JSON.stringify({
        id: `${prefix}-${i}`,
        content: `${prefix} fact ${i}: service ${i % 17} uses port ${3000 + i}`,
        type: only ?? (i % 2 ? 'project' : 'user'),
        createdAt: '2026-01-01T00:00:00Z',
      }),
    ).join('\n');
  writeFileSync(join(dir, 'base.jsonl'), lines('base', size));
  await cli('--db', base, '--branch', 'main', 'import', join(dir, 'base.jsonl'));
  writeFileSync(join(dir, 'new.jsonl'), lines('new', size));
  // A snapshot of another agent's store, for merge.
  const other = join(dir, 'other.db');
  writeFileSync(join(dir, 'other.jsonl'), lines('other', size, 'project'));
  await cli('--db', other, '--branch', 'main', 'import', join(dir, 'other.jsonl'));
  await cli('--db', other, '--branch', 'main', 'snapshot', join(dir, 'other.agentmem'));
  // A store with a merge to undo, and one with pruned memories to compact.
  const merged = join(dir, 'merged.db');
  copyFileSync(base, merged);
  await cli('--db', merged, '--branch', 'main', '--yes', 'merge', join(dir, 'other.agentmem'));
  const pruned = join(dir, 'pruned.db');
  copyFileSync(base, pruned);
  await cli('--db', pruned, '--branch', 'main', 'decay', '--now', FAR_FUTURE);
  return [
    { name: 'import', base, argv: (db) => ['--db', db, '--branch', 'main', 'import', join(dir, 'new.jsonl')] },
    {
      name: 'merge',
      base,
      argv: (db) => ['--db', db, '--branch', 'main', '--yes', 'merge', join(dir, 'other.agentmem')],
    },
    { name: 'decay', base, argv: (db) => ['--db', db, '--branch', 'main', 'decay', '--now', FAR_FUTURE] },
    { name: 'compact', base: pruned, argv: (db) => ['--db', db, '--branch', 'main', '--yes', 'compact'] },
    {
      name: 'undo-merge',
      base: merged,
      argv: (db) => ['--db', db, '--branch', 'main', '--yes', 'undo-merge', '--last'],
    },
  ];
}

/**
 * One kill -9 trial on the SQLite file `db`: counts it in `result` (and whether the kill landed mid-run),
 * checks the file's integrity, then runs `check` with a `fail` that notes why the trial failed; a file that
 * does not open fails it too. The file (with its -wal and -shm) is removed after.
 */
export async function checkTrial(
  result: CrashResult,
  t: number,
  db: string,
  interrupted: boolean,
  check: (fail: (note: string) => void) => Promise<void>,
): Promise<void> {
  result.trials++;
  if (interrupted) result.interrupted++;
  let failed = false;
  const fail = (note: string) => {
    failed = true;
    result.notes.push(`trial ${t}: ${note}`);
  };
  try {
    const integrityCheck = integrity(db);
    if (integrityCheck !== 'ok') fail(`integrity_check ${integrityCheck}`);
    await check(fail);
  } catch (error) {
    fail(`does not open: ${(error as Error).message}`);
  }
  if (failed) result.failures++;
  for (const s of ['', '-wal', '-shm']) rmSync(db + s, { force: true });
}

/** When to kill a child: `ms` after it printed a line that starts with the word `on` (`started`, `closing`). */
export interface KillTrigger {
  on: string;
  ms: number;
}

/**
 * Runs a fault-suite child (`node --import tsx <script> ...argv` from the repository root), SIGKILLed
 * as `kill` says (undefined: let it finish). Returns what it printed, and the ms from its `started` line
 * (which every child prints first) to its exit.
 */
export function runChild(
  script: string,
  argv: string[],
  kill: KillTrigger | undefined,
): Promise<{ out: string; stderr: string; ms: number }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, ['--import', 'tsx', script, ...argv], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const trigger = kill && new RegExp(`^${kill.on}(?: |$)`, 'm');
    let out = '';
    let stderr = '';
    let started = 0;
    let timer: NodeJS.Timeout | undefined;
    p.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      if (!started && /^started(?: |$)/m.test(out)) started = performance.now();
      if (kill && !timer && trigger!.test(out)) timer = setTimeout(() => p.kill('SIGKILL'), kill.ms);
    });
    p.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    p.on('close', () => {
      clearTimeout(timer);
      resolve({ out, stderr, ms: started ? performance.now() - started : 0 });
    });
  });
}

/** Runs the CLI child; kills it `afterMs` after it started (undefined: let it finish). */
async function runCliChild(
  argv: string[],
  afterMs: number | undefined,
): Promise<{ finished: boolean; ms: number; stderr: string }> {
  const { out, stderr } = await runChild(
    child,
    argv,
    afterMs === undefined ? undefined : { on: 'started', ms: afterMs },
  );
  const done = /done (\d+) ([\d.]+)/.exec(out);
  return { finished: done !== null && done[1] === '0', ms: done ? Number(done[2]) : 0, stderr };
}

export async function crashTrials(trialsPerOperation: number, size: number, seed = 1): Promise<CrashResult[]> {
  const dir = mkdtempSync(join(tmpdir(), 'agentmem-faults-'));
  const random = seededRandom(seed);
  try {
    const operations = await prepare(dir, size);
    const results: CrashResult[] = [];
    for (const op of operations) {
      const result = emptyResult(op.name);
      const before = await fingerprint(op.base);
      const afterDb = join(dir, `${op.name}-after.db`);
      copyFileSync(op.base, afterDb);
      const full = await runCliChild(op.argv(afterDb), undefined);
      if (!full.finished) throw new Error(`${op.name} did not complete without a kill: ${full.stderr}`);
      const after = await fingerprint(afterDb);
      if (same(before, after)) result.notes.push('the operation changed nothing');
      for (let t = 0; t < trialsPerOperation; t++) {
        const db = join(dir, `${op.name}-${t}.db`);
        copyFileSync(op.base, db);
        // Child start-up is included in its reported time; aim anywhere in the operation, a little past its end too.
        const run = await runCliChild(op.argv(db), random() * full.ms * 1.1);
        await checkTrial(result, t, db, !run.finished, async (fail) => {
          const now = await fingerprint(db);
          if (!same(now, before) && !same(now, after)) {
            result.halfApplied++;
            fail('neither the state before nor the state after');
          }
          for (const id of before.keys()) if (after.has(id) && !now.has(id)) result.recordsLost++;
        });
      }
      results.push(result);
    }
    return results;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
