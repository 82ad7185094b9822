/**
 * The fault suite: `npm run faults` (full) or `npm run faults -- --short` (CI,
 * a few trials each). kill -9 trials during merge, import, decay, compact,
 * undo-merge, a bulk ingest, the saves of the dense index, writes after a keyword save, optimize; the multi-process writer test; the corrupt-snapshot matrix; crafted
 * snapshot records and oversized fields; the tenant-isolation and prompt-block
 * property tests. Prints one table and exits 1 when anything failed. See
 * docs/reliability.md.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { crashTrials } from './crash-trials';
import { killPointTrials } from './kill-points'; // kill -9 at chosen points of a 6,000-memory decay and compact
import { bulkIngestTrials } from './bulk-ingest'; // kill -9 during rememberMany batches and the close that saves the keyword index
import { denseSaveTrials } from './dense-save'; // kill -9 during the saves of the binary dense index (first dense search, close)
import { catchUpTrials } from './catch-up'; // kill -9 in a process writing after the keyword index's save; the next one catches up
import { optimizeTrials } from './optimize'; // kill -9 during optimize: a sparse build finished in slices, the indexes saved

const short = process.argv.includes('--short');
const scale = short ? 'short' : 'full';
process.env.FAULT_SCALE = scale;
const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const started = Date.now();

interface Row {
  scenario: string;
  trials: number;
  failures: number;
  lost: number | string;
  halfApplied: number | string;
  note: string;
}
const rows: Row[] = [];

const crash = await crashTrials(short ? 1 : 20, short ? 200 : 600, Number(process.env.FAULT_SEED ?? 1));
for (const r of [
  ...crash,
  ...(await killPointTrials(short)),
  await bulkIngestTrials(short),
  await denseSaveTrials(short),
  await denseSaveTrials(short, 2, 'hashing'), // the same kills while the sparse index (hashing embedder) is built and saved
  await catchUpTrials(short),
  await optimizeTrials(short),
]) {
  rows.push({
    scenario: `kill -9 during ${r.operation}`,
    trials: r.trials,
    failures: r.failures,
    lost: r.recordsLost,
    halfApplied: r.halfApplied,
    note: `${r.interrupted} killed mid-operation${r.notes.length ? `; ${r.notes.join('; ')}` : ''}`,
  });
}

// The test-based scenarios run in one vitest process, scaled by FAULT_SCALE.
const suites: { scenario: string; file: string; filter?: string; trials: (tests: number) => number; note: string }[] = [
  {
    scenario: 'multi-process writers',
    file: 'packages/sqlite/src/multi-process.test.ts',
    trials: (n) => n,
    note: 'tests (each several writer processes)',
  },
  {
    scenario: 'corrupt-snapshot matrix',
    file: 'test/teleport/snapshot.test.ts',
    filter: 'bad files',
    trials: (n) => n,
    note: 'bad files, store and file unchanged',
  },
  {
    scenario: 'crafted snapshot records',
    file: 'test/faults/crafted-records.test.ts',
    filter: 'crafted snapshot',
    trials: (n) => n,
    note: 'every field of a memory and a skill record: refused (CORRUPT_SNAPSHOT) or harmless',
  },
  {
    scenario: 'oversized metadata and tags',
    file: 'test/faults/crafted-records.test.ts',
    filter: 'oversized',
    trials: (n) => n,
    note: 'API, import and merge: refused, store unchanged',
  },
  {
    scenario: 'tenant isolation (property)',
    file: 'test/faults/tenant-isolation.test.ts',
    trials: () => runs(10),
    note: 'random writes, 3 tenants × 2 branches',
  },
  {
    scenario: 'prompt block forgery (property)',
    file: 'test/faults/prompt-block.test.ts',
    trials: (n) => runs(300) + n - 1,
    note: 'hostile inputs, marked + micromark + line splitter',
  },
];
const out = mkdtempSync(join(tmpdir(), 'agentmem-faults-report-'));
try {
  const report = join(out, 'vitest.json');
  const args = ['vitest', 'run', ...new Set(suites.map((s) => s.file)), '--reporter=json', `--outputFile=${report}`];
  spawnSync('npx', args, { cwd: repoRoot, stdio: ['ignore', 'ignore', 'inherit'], env: process.env });
  const json = JSON.parse(readFileSync(report, 'utf8')) as {
    testResults: { name: string; assertionResults: { ancestorTitles: string[]; status: string; title: string }[] }[];
  };
  for (const s of suites) {
    const file = json.testResults.find((t) => relative(repoRoot, t.name) === s.file);
    const tests = (file?.assertionResults ?? []).filter(
      (a) => !s.filter || a.ancestorTitles.some((t) => t.includes(s.filter!)),
    );
    const failed = tests.filter((a) => a.status !== 'passed');
    rows.push({
      scenario: s.scenario,
      trials: tests.length === 0 ? 0 : s.trials(tests.length),
      failures: tests.length === 0 ? 1 : failed.length,
      lost: s.scenario === 'multi-process writers' ? failed.length : '-',
      halfApplied: '-',
      note:
        tests.length === 0
          ? 'did not run'
          : failed.length
            ? `failed: ${failed.map((f) => f.title).join('; ')}`
            : s.note,
    });
  }
} finally {
  rmSync(out, { recursive: true, force: true });
}

function runs(normal: number): number {
  return short ? Math.max(1, Math.round(normal / 10)) : normal * 10;
}

const header = ['scenario', 'trials', 'failures', 'records lost', 'half-applied', 'note'];
const lines = [
  `| ${header.join(' | ')} |`,
  `|${header.map(() => '---').join('|')}|`,
  ...rows.map((r) => `| ${r.scenario} | ${r.trials} | ${r.failures} | ${r.lost} | ${r.halfApplied} | ${r.note} |`),
];
console.log(`\nagentmem fault suite (${scale}), ${((Date.now() - started) / 1000).toFixed(0)} s wall\n`);
console.log(lines.join('\n'));
const failures = rows.reduce((n, r) => n + r.failures, 0);
console.log(`\n${failures === 0 ? 'OK' : 'FAILED'}: ${failures} failure(s).`);
process.exit(failures === 0 ? 0 : 1);
