import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentMemoryError, type BackendRecord } from '@agentmem/core';
import Database from 'better-sqlite3';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { CACHE_KIB, WRITE_CACHE_KIB } from '../schema';
import { emptyWal, walBytesAfterWriting } from '../test-fixtures/page-cache';
import { SqliteBackend } from './sqlite-backend';

const dir = mkdtempSync(join(tmpdir(), 'agentmem-sqlite-tx-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const open: SqliteBackend[] = [];
afterEach(async () => {
  for (const b of open.splice(0)) await b.close();
});

let n = 0;
async function backendOn(path = join(dir, `tx-${n++}.db`)) {
  const b = new SqliteBackend({ path });
  open.push(b);
  await b.init({ dimension: 2 });
  return b;
}

const rec = (id: string, text = `record ${id}`): BackendRecord => ({
  id,
  namespace: 'ns',
  tenant: '',
  text,
  vector: new Float32Array([1, 0]),
  attributes: { kind: 'memory' },
  payload: {},
});

const ids = async (b: SqliteBackend) => (await b.scan({ filter: { tenant: null } })).records.map((r) => r.id);
const tick = () => new Promise((r) => setTimeout(r, 5));

/**
 * Work of another async flow (another request, a timer): registered outside
 * the transaction, triggered from inside it. Code awaited inside `fn` itself
 * belongs to the transaction (AsyncLocalStorage follows it).
 */
function elsewhere<T>(work: () => Promise<T>) {
  let trigger!: () => void;
  const result = new Promise<void>((r) => (trigger = r)).then(work);
  return { trigger, result };
}

describe('SqliteBackend.transaction', () => {
  it('a write from outside a running transaction waits for it and survives its rollback', async () => {
    const b = await backendOn();
    const outside = elsewhere(() => b.upsert([rec('outside')]));
    await expect(
      b.transaction(async () => {
        await b.upsert([rec('inside')]);
        outside.trigger();
        await tick();
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    await outside.result;
    expect(await ids(b)).toEqual(['outside']);
  });

  it('a read from outside never sees uncommitted writes', async () => {
    const b = await backendOn();
    let seen: number | undefined;
    const reader = elsewhere(async () => {
      seen = await b.count({ tenant: '' });
    });
    await b.transaction(async () => {
      await b.upsert([rec('pending')]);
      reader.trigger();
      await tick();
      expect(seen).toBeUndefined(); // still waiting
    });
    await reader.result;
    expect(seen).toBe(1);
  });

  it('a failed nested transaction rolls back only its own writes', async () => {
    const b = await backendOn();
    await b.transaction(async () => {
      await b.upsert([rec('outer')]);
      await expect(
        b.transaction(async () => {
          await b.upsert([rec('inner')]);
          throw new Error('inner failed');
        }),
      ).rejects.toThrow('inner failed');
      await b.transaction(async () => b.upsert([rec('inner-ok')]));
    });
    expect(await ids(b)).toEqual(['inner-ok', 'outer']);
  });

  it('concurrent transactions run one after the other, each all or nothing', async () => {
    const b = await backendOn();
    const order: string[] = [];
    const run = (name: string, fail: boolean) =>
      b.transaction(async () => {
        order.push(`${name}:start`);
        await b.upsert([rec(name)]);
        await tick();
        order.push(`${name}:end`);
        if (fail) throw new Error(`${name} failed`);
      });
    const results = await Promise.allSettled([run('a', false), run('b', true), run('c', false)]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(order).toEqual(['a:start', 'a:end', 'b:start', 'b:end', 'c:start', 'c:end']);
    expect(await ids(b)).toEqual(['a', 'c']);
  });

  it('two backends on one file in one process wait for each other instead of timing out', async () => {
    const path = join(dir, 'shared.db');
    const a = await backendOn(path);
    const b = new SqliteBackend({ path, busyTimeoutMs: 50 });
    open.push(b);
    let bDone = false;
    const writer = elsewhere(async () => {
      await b.upsert([rec('from-b')]);
      bDone = true;
    });
    await a.transaction(async () => {
      await a.upsert([rec('from-a')]);
      writer.trigger();
      await new Promise((r) => setTimeout(r, 120)); // longer than b's busy timeout
      expect(bDone).toBe(false);
      // Using the other connection from inside this transaction could never finish: refused clearly.
      await expect(b.count({ tenant: '' })).rejects.toThrow(/another SqliteBackend/);
    });
    await writer.result;
    expect(bDone).toBe(true);
    expect(await ids(b)).toEqual(['from-a', 'from-b']);
  });

  it('returns the value of fn and keeps keyword and vector indexes consistent after rollback', async () => {
    const b = await backendOn();
    await b.upsert([rec('k', 'original words')]);
    await expect(
      b.transaction(async () => {
        await b.upsert([rec('k', 'replacement words')]);
        await b.delete(['k']);
        throw new Error('no');
      }),
    ).rejects.toThrow('no');
    const kw = await b.search({ mode: 'keyword', text: 'original', filter: { tenant: '' }, k: 5 });
    expect(kw.map((h) => h.record.id)).toEqual(['k']);
    expect(await b.search({ mode: 'keyword', text: 'replacement', filter: { tenant: '' }, k: 5 })).toEqual([]);
    const dense = await b.search({ mode: 'dense', vector: new Float32Array([1, 0]), filter: { tenant: '' }, k: 5 });
    expect(dense.map((h) => h.record.id)).toEqual(['k']);
    expect(await b.transaction(async () => 'value')).toBe('value');
  });

  it('a write that cannot get the lock within busyTimeoutMs fails with TIMEOUT and writes nothing', async () => {
    const path = join(dir, 'locked.db');
    const b = await backendOn(path);
    const slow = new SqliteBackend({ path, busyTimeoutMs: 30 });
    open.push(slow);
    const other = new Database(path); // another process, as far as SQLite is concerned
    try {
      other.exec('BEGIN IMMEDIATE');
      const error = await slow.upsert([rec('blocked')]).catch((e: unknown) => e);
      expect(AgentMemoryError.hasCode(error, 'TIMEOUT')).toBe(true);
      expect((error as Error).message).toMatch(/busyTimeoutMs/);
      await expect(slow.transaction(async () => 1)).rejects.toThrow(/busy timeout/);
      other.exec('ROLLBACK');
    } finally {
      other.close();
    }
    expect(await ids(b)).toEqual([]);
    await slow.upsert([rec('later')]);
    expect(await ids(b)).toEqual(['later']);
  });
});

describe('page cache of a transaction', () => {
  it('holds WRITE_CACHE_KIB while transaction() is open (a bulk batch is not spilled into the WAL), CACHE_KIB after it', async () => {
    const path = join(dir, 'cache.db');
    await (await backendOn(path)).close();
    open.length = 0;
    // A connection that did not create the file (its cache was always CACHE_KIB).
    const b = await backendOn(path);
    const cache = () => b.database.pragma('cache_size', { simple: true });
    expect(cache()).toBe(-CACHE_KIB);
    let inside = -1;
    emptyWal(b.database);
    await b.transaction(async () => {
      expect(cache()).toBe(-WRITE_CACHE_KIB);
      await b.upsert([rec('a')]);
      inside = walBytesAfterWriting(b.database, 2600); // 21 MB of pages: spilled at 16 MiB, held at 32
    });
    expect(inside).toBe(0);
    expect(cache()).toBe(-CACHE_KIB);
    // Back to CACHE_KIB after a failed transaction too.
    await expect(
      b.transaction(async () => {
        throw new Error('no');
      }),
    ).rejects.toThrow('no');
    expect(cache()).toBe(-CACHE_KIB);
    // Outside transaction(): the same pages are spilled.
    emptyWal(b.database);
    b.database.exec('BEGIN IMMEDIATE');
    expect(walBytesAfterWriting(b.database, 2600)).toBeGreaterThan(2 * 2 ** 20);
    b.database.exec('ROLLBACK');
    expect(await ids(b)).toEqual(['a']);
  });
});
