import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from './run-cli';

const root = fileURLToPath(new URL('../..', import.meta.url));
const canMakeFifo = process.platform !== 'win32' && spawnSync('mkfifo', ['--version']).status === 0;

interface Outcome {
  argv: string[];
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the command lines in one child process; what each printed, or a timeout error when one blocked. */
function runAll(runs: string[][], timeoutMs = 30_000): Promise<Outcome[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/cli/run-many.ts', JSON.stringify(runs)], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', () => {
      clearTimeout(timer);
      const done = out
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Outcome);
      if (done.length < runs.length) {
        reject(new Error(`blocked on: agentmem ${runs[done.length]!.join(' ')} (no answer in ${timeoutMs} ms)`));
      } else resolve(done);
    });
  });
}

describe.skipIf(!canMakeFifo)('the CLI never blocks on a FIFO or a device', { timeout: 60_000 }, () => {
  const tmp = tempDir();
  const db = tmp.path('memory.db');
  const fifo = tmp.path('pipe');
  beforeAll(async () => {
    const made = await runCli([
      '--db',
      db,
      '--branch',
      'main',
      'remember',
      'Deploys go out on Tuesdays',
      '-t',
      'project',
    ]);
    expect(made.code, made.stderr).toBe(0);
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
  });
  afterAll(() => tmp.cleanup());

  it('refuses a FIFO or a device as the file to read, with the fix, for every command that reads one', async () => {
    const runs = [
      ['merge', fifo, '--yes'],
      ['diff', fifo],
      ['import', fifo],
      ['import', '/dev/zero'],
      ['skills', 'load', fifo],
      ['skills', 'lint', fifo],
    ];
    const outcomes = await runAll(runs.map((argv) => ['--db', db, '--branch', 'main', ...argv]));
    for (const [i, o] of outcomes.entries()) {
      const shown = runs[i]!.join(' ');
      expect(o.code, shown).toBe(1);
      expect(o.stderr, shown).toMatch(
        /^error \[INVALID_INPUT\]: .* is a (FIFO \(named pipe\)|character device), not a regular file; nothing was read or written\. (Give|To import) /,
      );
      expect(o.stderr.split('\n').filter(Boolean), shown).toHaveLength(1);
    }
    expect(outcomes[2]!.stderr).toContain('cmd | agentmem import -');
    // Nothing reached the store.
    expect((await runCli(['--db', db, 'stats', '--json'])).json().total).toBe(1);
  });

  it('refuses a FIFO or a device as the store or a target to write, and leaves it as it was', async () => {
    const runs = [
      ['--db', fifo, 'stats'],
      ['--db', fifo, 'remember', 'x', '-t', 'user'],
      ['--db', db, 'snapshot', fifo, '--force'],
      ['--db', db, 'export', '--out', fifo],
      ['--db', db, 'mcp', '--skills', fifo],
      ['--db', fifo, 'mcp'],
    ];
    const outcomes = await runAll(runs);
    for (const [i, o] of outcomes.entries()) {
      expect(o.code, runs[i]!.join(' ')).toBe(1);
      expect(o.stderr, runs[i]!.join(' ')).toMatch(
        /^error \[INVALID_INPUT\]: (--db|The snapshot target|--out|--skills) .* is a FIFO \(named pipe\), not a regular file/,
      );
    }
    // Still the FIFO: nothing renamed over it, no partial file beside it.
    expect(statSync(fifo).isFIFO()).toBe(true);
    expect(existsSync(`${fifo}-wal`)).toBe(false);
  });

  it('still reads regular files, through a link too, and stdin with -', async () => {
    const dir = tmp.path('in');
    mkdirSync(dir);
    const jsonl = join(dir, 'one.jsonl');
    writeFileSync(jsonl, `${JSON.stringify({ content: 'Builds run on Buildkite', type: 'project' })}\n`);
    const link = join(dir, 'link.jsonl');
    symlinkSync(jsonl, link);
    const run = await runCli(['--db', db, '--branch', 'main', 'import', link]);
    expect(run.code, run.stderr).toBe(0);
    const piped = await runCli(['--db', db, '--branch', 'main', 'import', '-'], {
      stdin: `${JSON.stringify({ content: 'Releases are tagged vX.Y.Z', type: 'project' })}\n`,
    });
    expect(piped.code, piped.stderr).toBe(0);
    expect((await runCli(['--db', db, 'stats', '--json'])).json().total).toBe(3);
  });
});
