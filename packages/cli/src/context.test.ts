import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { removeNewStore } from './context';

const dir = mkdtempSync(join(tmpdir(), 'agentmem-cli-new-store-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A WAL database at `path` with one row, written and closed by its own connection. */
function walFile(path: string): void {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.exec('CREATE TABLE t (x); INSERT INTO t VALUES (1)');
  db.close();
}

describe('removeNewStore (a failed command puts back the store file it created)', () => {
  it('removes the file and its sidecars when no other connection has it open', () => {
    const path = join(dir, 'alone.db');
    walFile(path);
    expect(removeNewStore({ path, wasEmpty: false, dirs: [] })).toBe(true);
    expect(existsSync(path)).toBe(false);
  });

  it('keeps the file while another connection has it open: that process may be writing to it', () => {
    const path = join(dir, 'shared.db');
    walFile(path);
    const other = new Database(path); // another process that opened the new store meanwhile
    other.prepare('SELECT count(*) FROM t').get();
    const mine = new Database(path);
    mine.prepare('SELECT count(*) FROM t').get();
    mine.close(); // not the last connection: SQLite leaves the -wal file
    try {
      expect(removeNewStore({ path, wasEmpty: false, dirs: [] })).toBe(false);
      other.exec('INSERT INTO t VALUES (2)');
      expect(other.prepare('SELECT count(*) AS n FROM t').get()).toEqual({ n: 2 });
      expect(existsSync(path)).toBe(true);
    } finally {
      other.close();
    }
  });
});
