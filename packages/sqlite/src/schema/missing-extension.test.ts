import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { SqliteBackend } from '../backend';

// What a machine without the platform's sqlite-vec binary sees when the extension loads.
vi.mock('sqlite-vec', () => ({
  load: () => {
    throw new Error('Loadable extension for sqlite-vec not found. Was the sqlite-vec-linux-x64 package installed?');
  },
}));

const dir = mkdtempSync(join(tmpdir(), 'agentmem-sqlite-noext-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Opening `path` fails with MISSING_DEPENDENCY naming the install. */
function expectMissingExtension(path: string): void {
  expect(() => new SqliteBackend({ path })).toThrow(
    expect.objectContaining({ code: 'MISSING_DEPENDENCY', message: expect.stringMatching(/npm install sqlite-vec/) }),
  );
}

describe('without the sqlite-vec extension', () => {
  it('fails with MISSING_DEPENDENCY saying what to install, and creates nothing', () => {
    const path = join(dir, '.agentmem', 'memory.db');
    expectMissingExtension(path);
    expect(readdirSync(dir)).toEqual([]); // not even the parent directory
  });

  it('fails the same way on a file that exists, and leaves it as it was (no -wal or -shm beside it)', () => {
    const sub = join(dir, 'existing');
    mkdirSync(sub);
    const path = join(sub, 'memory.db');
    const db = new Database(path);
    db.pragma('journal_mode = WAL');
    db.exec('CREATE TABLE t (x)');
    db.close();
    const before = readFileSync(path);
    expectMissingExtension(path);
    expect(readdirSync(sub)).toEqual(['memory.db']);
    expect(readFileSync(path).equals(before)).toBe(true);
  });
});
