import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, tempDir } from './run-cli';

const root = fileURLToPath(new URL('../..', import.meta.url));
const BIN = ['--import', 'tsx', 'packages/cli/src/bin.ts'];
const NOBODY = 65534;

/**
 * Root ignores file modes, so when the tests run as root the CLI runs as
 * user nobody (uid/gid 65534) for the permissions to apply; otherwise chmod
 * alone makes the file read-only for this user.
 */
const asRoot = process.getuid?.() === 0;
const identity = asRoot ? { uid: NOBODY, gid: NOBODY } : {};
/** Nobody must be able to read the checkout (sources, node_modules) to run the CLI from it. */
const canRunCli =
  !asRoot ||
  spawnSync(process.execPath, [...BIN, '--version'], { cwd: root, ...identity, timeout: 60_000 }).status === 0;

function cli(argv: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...BIN, '--branch', 'main', ...argv], {
      cwd: root,
      ...identity,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const digest = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

describe.skipIf(!canRunCli)(
  canRunCli
    ? 'agentmem on a read-only store: reading commands work and leave no file behind'
    : `agentmem on a read-only store (skipped: running as root and user nobody, uid ${NOBODY}, cannot run the CLI from ${root})`,
  () => {
    let tmp: ReturnType<typeof tempDir>;
    let db: string;
    beforeEach(async () => {
      tmp = tempDir();
      db = tmp.path('memory.db');
      writeFileSync(
        tmp.path('seed.jsonl'),
        ['Deploys go through ArgoCD.', 'Staging runs Kubernetes 1.29.', 'The billing service owns invoices.']
          .map((content) => JSON.stringify({ content, type: 'project' }))
          .join('\n'),
      );
      expect((await runCli(['--branch', 'main', '--db', db, 'import', tmp.path('seed.jsonl')])).code).toBe(0);
    });
    afterEach(() => {
      chmodSync(tmp.dir, 0o700);
      tmp.cleanup();
    });

    for (const directory of [
      { mode: 0o555, file: 0o444, label: 'in a read-only directory' },
      { mode: 0o777, file: 0o444, label: 'in a directory anyone can write (SQLite would put -wal/-shm there)' },
      { mode: 0o555, file: 0o666, label: 'on a writable file in a read-only directory (no room for -wal/-shm)' },
    ]) {
      it(`recall, stats, export, history and branch list ${directory.label}`, async () => {
        const files = readdirSync(tmp.dir).sort();
        chmodSync(db, directory.file);
        chmodSync(tmp.dir, directory.mode);
        const before = digest(db);

        const recall = await cli(['--db', db, 'recall', 'argocd deploys', '--json']);
        expect(recall.code, recall.stderr).toBe(0);
        const top = JSON.parse(recall.stdout).results[0];
        expect(top.content).toBe('Deploys go through ArgoCD.');
        const stats = await cli(['--db', db, 'stats', '--json']);
        expect(stats.code, stats.stderr).toBe(0);
        expect(JSON.parse(stats.stdout).total).toBe(3);
        const exported = await cli(['--db', db, 'export']);
        expect(exported.code, exported.stderr).toBe(0);
        expect(exported.stdout.trim().split('\n')).toHaveLength(3);
        const history = await cli(['--db', db, 'history', top.id, '--json']);
        expect(history.code, history.stderr).toBe(0);
        const branches = await cli(['--db', db, 'branch', 'list', '--json']);
        expect(branches.code, branches.stderr).toBe(0);

        // A writing command is refused in one line, before anything changes.
        const remember = await cli(['--db', db, 'remember', 'A new fact', '-t', 'project']);
        expect(remember.code).toBe(1);
        expect(remember.stderr).toMatch(
          /^error \[INVALID_INPUT\]: .*memory\.db is not writable by this user .*refused before changing anything.*\n$/,
        );

        expect(readdirSync(tmp.dir).sort()).toEqual(files);
        expect(digest(db)).toBe(before);
      }, 120_000);
    }
  },
);
