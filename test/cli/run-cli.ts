import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { main } from '@agentmem/cli';
import { afterEach, beforeEach } from 'vitest';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON (for --json runs). */
  // biome-ignore lint/suspicious/noExplicitAny: tests read fields of the parsed output and check them with expect
  json: <T = any>() => T;
}

/** Runs `agentmem` in-process and captures what it prints. */
export async function runCli(argv: string[], options: { stdin?: string; isTTY?: boolean } = {}): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    ...(options.stdin !== undefined ? { stdin: Readable.from([options.stdin]) } : {}),
    isTTY: options.isTTY ?? false,
  });
  return { code, stdout, stderr, json: () => JSON.parse(stdout) };
}

/** A temporary directory, removed by the returned cleanup. */
export function tempDir(): { dir: string; path: (name: string) => string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'agentmem-cli-test-'));
  return { dir, path: (name) => join(dir, name), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * A fresh database file per test (registers the hooks): `store.cli(...)` runs
 * `agentmem` on it with branch main, so namespaces do not depend on this
 * checkout's branch (a later --branch wins).
 */
export function useFreshStore() {
  let dir: ReturnType<typeof tempDir> | undefined;
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => dir?.cleanup());
  const store = {
    get tmp() {
      return dir!;
    },
    get db() {
      return dir!.path('memory.db');
    },
    cli: (...argv: string[]) => runCli(['--db', store.db, '--branch', 'main', ...argv]),
  };
  return store;
}
