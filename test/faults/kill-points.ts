/**
 * kill -9 at chosen points inside one decay and one compact of a store larger
 * than every page and batch (6,000 memories): the child kills itself right
 * after its Nth write call to the backend returned, and once more after the
 * operation returned. On SQLite every cut must leave the file intact and the
 * state before or after the operation, history included. On Qdrant (no
 * transactions, the fake server of the tests) every cut must leave each
 * memory whole, and running the operation again must reach the state of an
 * uncut run with one history entry per memory.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { MemoryBackend } from '@agentmem/core';
import { FIELD, QdrantBackend } from '@agentmem/qdrant';
import { SqliteBackend } from '@agentmem/sqlite';
import { FakeQdrant } from '../qdrant/fake-qdrant';
import { qdrantSpecAvailable, SPEC_MISSING } from '../qdrant/spec';
import { type CrashResult, emptyResult, integrity } from './crash-trials';
import {
  differences,
  fillStore,
  KILL_POINT_SETTINGS,
  KILL_POINT_SIZE,
  QDRANT_KILL_POINT_SIZE,
  readState,
  runOperation,
  type StoreState,
  stateOf,
  wholeMemories,
} from './kill-point-store';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const child = fileURLToPath(new URL('./kill-point-child.ts', import.meta.url));
const OPERATIONS = ['decay', 'compact'] as const;
type Operation = (typeof OPERATIONS)[number];

/** Runs the child, to be killed at `killAt` (a write count, or `end`). */
function runChild(args: string[], killAt: number | 'end'): Promise<{ killed: boolean; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, ['--import', 'tsx', child, ...args], {
      cwd: repoRoot,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, KILL_AFTER_WRITES: String(killAt) },
    });
    let stderr = '';
    p.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    p.on('close', (_code, signal) => resolve({ killed: signal === 'SIGKILL', stderr }));
  });
}

/**
 * Where to cut: after every write and after the end; with `--short`, after
 * the last write only (the whole pass written, nothing committed yet: with
 * commits per page, every page but the last would be in).
 */
function killPoints(writes: number, short: boolean): (number | 'end')[] {
  if (short) return [writes];
  return [...Array.from({ length: writes }, (_, i) => i + 1), 'end'];
}

const label = (op: Operation, size: number, where: string) =>
  `${op} at kill points, ${size.toLocaleString('en')} memories, ${where}`;

async function backendState(backend: MemoryBackend): Promise<StoreState> {
  try {
    await backend.init({ dimension: KILL_POINT_SETTINGS.dimension });
    return await readState(backend);
  } finally {
    await backend.close();
  }
}

async function sqliteTrials(dir: string, short: boolean): Promise<CrashResult[]> {
  const files: Record<Operation, string> = { decay: join(dir, 'base.db'), compact: join(dir, 'pruned.db') };
  await fillStore(new SqliteBackend({ path: files.decay }), KILL_POINT_SIZE);
  copyFileSync(files.decay, files.compact);
  // Uncut runs go in this process (a child costs a start-up); only the runs to kill are children.
  await runOperation(new SqliteBackend({ path: files.compact }), 'decay');
  const sqliteState = (path: string) => backendState(new SqliteBackend({ path }));
  const results: CrashResult[] = [];
  for (const op of OPERATIONS) {
    const r = emptyResult(label(op, KILL_POINT_SIZE, 'SQLite'));
    const before = await sqliteState(files[op]);
    const afterDb = join(dir, `${op}-after.db`);
    copyFileSync(files[op], afterDb);
    const writes = await runOperation(new SqliteBackend({ path: afterDb }), op);
    const after = await sqliteState(afterDb);
    let left = { before: 0, after: 0 };
    for (const at of killPoints(writes, short)) {
      const db = join(dir, `${op}-cut-${at}.db`);
      copyFileSync(files[op], db);
      const run = await runChild([op, 'sqlite', db], at);
      r.trials++;
      if (run.killed) r.interrupted++;
      const check = integrity(db);
      const now = await sqliteState(db);
      const isBefore = differences(now, before) === 0;
      const isAfter = differences(now, after) === 0;
      left = { before: left.before + Number(isBefore), after: left.after + Number(isAfter) };
      let failed = !run.killed || check !== 'ok';
      if (!run.killed) r.notes.push(`cut ${at}: the child was not killed (${run.stderr.trim().slice(0, 200)})`);
      if (check !== 'ok') r.notes.push(`cut ${at}: integrity_check ${check}`);
      if (!isBefore && !isAfter) {
        failed = true;
        r.halfApplied++;
        r.notes.push(
          `cut ${at}: ${differences(now, before)} memories differ from before, ${differences(now, after)} from after`,
        );
      }
      for (const id of before.memories.keys()) if (after.memories.has(id) && !now.memories.has(id)) r.recordsLost++;
      if (failed) r.failures++;
      for (const suffix of ['', '-wal', '-shm']) rmSync(db + suffix, { force: true });
    }
    r.notes.push(
      `${writes} writes in one run; ${left.before} cuts left the state before, ${left.after} the state after`,
    );
    results.push(r);
  }
  return results;
}

async function qdrantTrials(short: boolean): Promise<CrashResult[]> {
  const skipped = (why: string) =>
    OPERATIONS.map((op) => ({ ...emptyResult(label(op, QDRANT_KILL_POINT_SIZE, 'Qdrant (fake)')), notes: [why] }));
  // Each Qdrant trial costs the fake server seconds; npm test's conformance case cuts the same passes at every write.
  if (short)
    return skipped(
      'not with --short (full run only; the backend conformance case in npm test cuts both at every write)',
    );
  if (!qdrantSpecAvailable) return skipped(SPEC_MISSING);
  const fake = await FakeQdrant.start();
  try {
    const backend = (collection: string) =>
      new QdrantBackend({ url: fake.url, collection, checkCompatibility: false, retry: { retries: 0 } });
    /**
     * What the server holds (read from the fake's own points: reading it through the adapter costs the
     * fake seconds per state, and this is the truth a kill left on the server).
     */
    const serverState = (collection: string) =>
      stateOf(
        [...(fake.collections.get(collection)?.points.values() ?? [])].map((point) => ({
          id: String(point.payload[FIELD.id]),
          attributes: point.payload[FIELD.attributes] as Record<string, unknown>,
          payload: point.payload[FIELD.payload] as Record<string, unknown>,
        })),
      );
    /** A copy of a collection under another name (the fake keeps collections in memory). */
    const copy = (from: string, to: string) => {
      const source = fake.collections.get(from);
      if (!source) throw new Error(`no collection ${from}`);
      fake.collections.set(to, { ...structuredClone(source), name: to });
    };
    await fillStore(backend('base'), QDRANT_KILL_POINT_SIZE);
    copy('base', 'pruned');
    await runOperation(backend('pruned'), 'decay');
    const sources: Record<Operation, string> = { decay: 'base', compact: 'pruned' };
    const results: CrashResult[] = [];
    for (const op of OPERATIONS) {
      const r = emptyResult(label(op, QDRANT_KILL_POINT_SIZE, 'Qdrant (fake), resumable'));
      const before = serverState(sources[op]);
      copy(sources[op], `${op}-after`);
      const writes = await runOperation(backend(`${op}-after`), op);
      const after = serverState(`${op}-after`);
      let partial = 0;
      for (const at of killPoints(writes, false)) {
        const name = `${op}-cut-${at}`;
        copy(sources[op], name);
        const run = await runChild([op, 'qdrant', fake.url, name], at);
        r.trials++;
        if (run.killed) r.interrupted++;
        const cut = serverState(name);
        const problems = wholeMemories(cut, before.memories.keys());
        if (differences(cut, before) !== 0 && differences(cut, after) !== 0) partial++;
        // The documented recovery: run the same operation again.
        const rerun = await runOperation(backend(name), op).catch((error: Error) => error);
        const finished = serverState(name);
        const off = differences(finished, after);
        if (off !== 0) r.halfApplied++;
        if (!run.killed || problems.length > 0 || rerun instanceof Error || off !== 0) {
          r.failures++;
          r.notes.push(
            `cut ${at}: ${run.killed ? '' : 'not killed; '}${problems.slice(0, 3).join(', ')}${off ? `; after the rerun ${off} memories differ from an uncut run` : ''}`,
          );
        }
        for (const id of before.memories.keys())
          if (after.memories.has(id) && !finished.memories.has(id)) r.recordsLost++;
        fake.collections.delete(name);
      }
      r.notes.push(
        `${writes} writes in one run; ${partial} of ${r.trials} cuts left part of the pass done (no transactions)${r.failures === 0 ? ', and a rerun finished each' : ''}`,
      );
      results.push(r);
    }
    if (fake.violations.length > 0) throw new Error(`requests the real Qdrant would refuse: ${fake.violations[0]}`);
    return results;
  } finally {
    await fake.stop();
  }
}

export async function killPointTrials(short: boolean): Promise<CrashResult[]> {
  const dir = mkdtempSync(join(tmpdir(), 'agentmem-kill-points-'));
  try {
    return [...(await sqliteTrials(dir, short)), ...(await qdrantTrials(short))];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// For a quick look: `npx tsx test/faults/kill-points.ts [--short]`.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const r of await killPointTrials(process.argv.includes('--short'))) console.log(JSON.stringify(r));
}
