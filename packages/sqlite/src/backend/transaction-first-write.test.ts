import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BackendRecord } from '@agentmem/core';
import Database from 'better-sqlite3';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { SqliteBackend } from './sqlite-backend';

// The outermost transaction is a savepoint that is the transaction itself, and the first write inside
// it opens no savepoint of its own (no sub-journal): what a failed first write undoes must stay the same.
const dir = mkdtempSync(join(tmpdir(), 'agentmem-sqlite-first-write-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const open: SqliteBackend[] = [];
afterEach(async () => {
  for (const b of open.splice(0)) await b.close();
});

let n = 0;
async function backendOn(path = join(dir, `first-${n++}.db`)) {
  const b = new SqliteBackend({ path });
  open.push(b);
  await b.init({ dimension: 2 });
  return b;
}

const rec = (id: string): BackendRecord => ({
  id,
  namespace: 'ns',
  tenant: '',
  text: `words of ${id}`,
  vector: new Float32Array([1, id.length]),
  attributes: { kind: 'memory' },
  payload: {},
});

const ids = async (b: SqliteBackend) => (await b.scan({ filter: { tenant: null } })).records.map((r) => r.id).sort();
const keywordHits = async (b: SqliteBackend, text: string) =>
  (await b.search({ mode: 'keyword', text, k: 10, filter: { tenant: null } })).map((h) => h.record.id).sort();

/** Makes the insert of `id` fail after the rows before it in the same statement were written (FAIL keeps them). */
function failOn(b: SqliteBackend, id: string) {
  b.database.exec(
    `CREATE TRIGGER fail_on BEFORE INSERT ON records WHEN new.id = '${id}' BEGIN SELECT RAISE(FAIL, 'refused'); END`,
  );
}

describe('the first write of a transaction', () => {
  it('opens no savepoint of its own; later writes do', async () => {
    const b = await backendOn();
    const exec = vi.spyOn(b.database, 'exec');
    await b.transaction(async () => {
      await b.upsert([rec('a'), rec('b')]);
      expect(exec.mock.calls.map(([sql]) => sql)).not.toContain('SAVEPOINT agentmem_op');
      await b.upsert([rec('c')]);
      expect(exec.mock.calls.map(([sql]) => sql)).toContain('SAVEPOINT agentmem_op');
    });
    exec.mockRestore();
    expect(await ids(b)).toEqual(['a', 'b', 'c']);
  });

  it('holds the write lock from the start, before any write, as BEGIN IMMEDIATE did', async () => {
    const path = join(dir, 'lock.db');
    const b = await backendOn(path);
    const other = new Database(path, { timeout: 0 });
    try {
      await b.transaction(async () => {
        expect(() => other.exec('BEGIN IMMEDIATE')).toThrow(/locked|busy/i);
      });
      other.exec('BEGIN IMMEDIATE'); // free again once it ended
      other.exec('ROLLBACK');
    } finally {
      other.close();
    }
  });

  it('that fails partway leaves nothing of it, in the file or the indexes, and the transaction goes on', async () => {
    const b = await backendOn();
    failOn(b, 'bad');
    await b.transaction(async () => {
      await expect(b.upsert([rec('good1'), rec('good2'), rec('bad')])).rejects.toThrow(/refused/);
      expect(await ids(b)).toEqual([]);
      await b.upsert([rec('after')]);
    });
    expect(await ids(b)).toEqual(['after']);
    expect(await keywordHits(b, 'words')).toEqual(['after']);
    const dense = await b.search({ mode: 'dense', vector: new Float32Array([1, 5]), k: 10, filter: { tenant: null } });
    expect(dense.map((h) => h.record.id)).toEqual(['after']);
  });

  it('a failed write after another one undoes only itself', async () => {
    const b = await backendOn();
    failOn(b, 'bad');
    await b.transaction(async () => {
      await b.upsert([rec('before')]);
      await expect(b.upsert([rec('x'), rec('bad')])).rejects.toThrow(/refused/);
      await b.upsert([rec('after')]);
    });
    expect(await ids(b)).toEqual(['after', 'before']);
    expect(await keywordHits(b, 'words')).toEqual(['after', 'before']);
  });

  it('a failed first write after a nested transaction that wrote undoes only itself', async () => {
    const b = await backendOn();
    failOn(b, 'bad');
    await b.transaction(async () => {
      await b.transaction(async () => b.upsert([rec('nested')]));
      await expect(b.upsert([rec('x'), rec('bad')])).rejects.toThrow(/refused/);
    });
    expect(await ids(b)).toEqual(['nested']);
  });

  it('a failed first write, then the transaction fails: nothing is kept', async () => {
    const b = await backendOn();
    failOn(b, 'bad');
    await expect(
      b.transaction(async () => {
        await b.upsert([rec('good'), rec('bad')]);
      }),
    ).rejects.toThrow(/refused/);
    expect(await ids(b)).toEqual([]);
    await b.upsert([rec('later')]);
    expect(await ids(b)).toEqual(['later']);
  });
});
