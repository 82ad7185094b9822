import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BackendRecord, InMemoryBackend, KeywordIndex, type RecordFilter } from '@agentmem/core';
import { seededRandom } from '@agentmem/core/testing';
import Database from 'better-sqlite3';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { SqliteBackend } from '../backend';
import { SCHEMA_VERSION } from '../schema';
import { KEYWORD_SAVE_AFTER, SqliteKeywordIndex } from './keyword-index';

const dir = mkdtempSync(join(tmpdir(), 'agentmem-sqlite-keyword-snapshot-'));
let n = 0;
const open: SqliteBackend[] = [];
function backend(path: string): SqliteBackend {
  const b = new SqliteBackend({ path });
  open.push(b);
  return b;
}
const fresh = () => join(dir, `store-${n++}.db`);
/** A keyword search: loads the connection's index. */
const touch = (b: SqliteBackend) => b.search({ mode: 'keyword', text: 'apple', filter: { tenant: null }, k: 1 });

const WORDS = 'apple pie crust ferry zanzibar paris train the of deploy deployed café'.split(' ');

function randomRecords(count: number, seed: number): BackendRecord[] {
  const random = seededRandom(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)]!;
  const text = () => Array.from({ length: Math.floor(random() * 8) }, () => pick(WORDS)).join(' ');
  return Array.from({ length: count }, (_, i) => ({
    id: `r${String(i).padStart(5, '0')}`,
    tenant: pick(['a', 'b']),
    namespace: pick(['n1', 'n2']),
    text: i === 7 && seed === 5 ? 'ferry '.repeat(300) : text(), // one index with a frequency past a byte
    ...(random() < 0.4 ? { context: text() } : {}),
    attributes: {
      kind: pick(['memory', 'history']),
      status: pick(['active', 'superseded']),
      // Numbers and labels in one column, and a text whose frequency does not fit a byte.
      ...(i % 3 ? { occurredAt: Math.floor(random() * 100) } : { occurredAt: 'unknown' }),
    },
    payload: {},
  }));
}

const FILTERS: RecordFilter[] = [
  { tenant: 'a' },
  { tenant: null },
  { tenant: 'a', namespaces: ['n1', 'n2'], where: { kind: 'memory', status: 'active' } },
  { tenant: 'b', where: { kind: 'memory', occurredAt: { gte: 20, lt: 70 } } },
];
const QUERIES = ['apple pie', 'the ferry to Zanzibar', 'deploying trains', 'cafe crust'];

async function expectSameAsInMemory(sqlite: SqliteBackend, records: readonly BackendRecord[]) {
  const memory = new InMemoryBackend();
  await memory.upsert(records);
  for (const filter of FILTERS) {
    for (const text of QUERIES) {
      const request = { mode: 'keyword' as const, text, filter, k: 20 };
      const s = (await sqlite.search(request)).map((h) => [h.record.id, h.score.toFixed(9)]);
      const m = (await memory.search(request)).map((h) => [h.record.id, h.score.toFixed(9)]);
      expect(s).toEqual(m);
    }
  }
}

/** Every query under every filter: ids and scores. */
async function rankings(sqlite: SqliteBackend) {
  const out: [string, string][][] = [];
  for (const filter of FILTERS)
    for (const text of QUERIES)
      out.push(
        (await sqlite.search({ mode: 'keyword', text, filter, k: 20 })).map((h) => [h.record.id, h.score.toFixed(12)]),
      );
  return out;
}

function raw(path: string) {
  const db = new Database(path);
  return {
    snapshots: () => db.prepare('SELECT count(*) FROM keyword_snapshot').pluck().get() as number,
    changes: () => db.prepare('SELECT count(*) FROM keyword_changes').pluck().get() as number,
    db,
  };
}

/**
 * Closes the backend and counts what its close did to the keyword index: documents tokenised
 * (`KeywordIndex.set`) and records read back into it (a rebuild's or catch-up's rows).
 */
async function closeCounting(b: SqliteBackend): Promise<{ tokenised: number; reread: number }> {
  const set = vi.spyOn(KeywordIndex.prototype, 'set');
  // biome-ignore lint/suspicious/noExplicitAny: the private path every rebuild and catch-up reads its rows through
  const addRows = vi.spyOn(SqliteKeywordIndex.prototype as any, 'addRows');
  try {
    await b.close();
    return { tokenised: set.mock.calls.length, reread: addRows.mock.calls.length };
  } finally {
    set.mockRestore();
    addRows.mockRestore();
  }
}

/** A new file holding `records`, its keyword index saved (a search loaded it, the close saved it). */
async function savedStore(records: readonly BackendRecord[]): Promise<string> {
  const path = fresh();
  const writer = backend(path);
  await writer.upsert(records);
  await touch(writer);
  await writer.close();
  return path;
}

afterEach(async () => {
  for (const b of open.splice(0)) await b.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the keyword index kept in the file', () => {
  const records = randomRecords(KEYWORD_SAVE_AFTER + 500, 5);

  it('is saved when a bulk write to a loaded index closes, and the next connection ranks from it exactly as the in-memory backend', async () => {
    const path = fresh();
    const writer = backend(path);
    await writer.upsert(records.slice(0, 700));
    await touch(writer);
    await writer.upsert(records.slice(700));
    await writer.close();
    const file = raw(path);
    expect(file.snapshots()).toBe(1);
    expect(file.changes()).toBe(0); // the changes the snapshot covers are gone
    await expectSameAsInMemory(backend(path), records);
    // What a new connection loads is the saved index: an edit by raw SQL (which logs no change) is
    // not seen by it until the snapshot is dropped, and the rebuild then sees it.
    file.db.prepare("UPDATE records SET text = 'quokka' WHERE id = 'r00001'").run();
    const top = async () =>
      (await backend(path).search({ mode: 'keyword', text: 'quokka', filter: { tenant: null }, k: 1 }))[0]?.record.id;
    expect(await top()).toBeUndefined();
    file.db.exec('DELETE FROM keyword_snapshot');
    expect(await top()).toBe('r00001');
    file.db.close();
  });

  it('a row deleted behind the saved index is not a result, and the search does not fail', async () => {
    const path = await savedStore(records);
    const file = raw(path);
    expect(file.snapshots()).toBe(1);
    // As another process's delete landing between the index search and the row read does.
    file.db.prepare("DELETE FROM records WHERE id = 'r00007'").run(); // the one 'ferry' x300
    file.db.close();
    const hits = await backend(path).search({ mode: 'keyword', text: 'ferry', filter: { tenant: null }, k: 5 });
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.map((h) => h.record.id)).not.toContain('r00007');
  });

  it('an unreadable saved index is rebuilt from the records (and saved again), never an error', async () => {
    const path = await savedStore(records);
    const file = raw(path);
    file.db.prepare('UPDATE keyword_snapshot SET data = substr(data, 1, 40)').run(); // cut short
    file.db.close();
    await expectSameAsInMemory(backend(path), records);
    const again = raw(path);
    expect((again.db.prepare('SELECT length(data) FROM keyword_snapshot').pluck().get() as number) > 100).toBe(true);
    again.db.close();
  });

  it('catches up from the changes other connections logged after it: writes, patches, deletes', async () => {
    const path = fresh();
    const writer = backend(path);
    await touch(writer);
    await writer.upsert(records);
    await writer.close();
    const current = new Map(records.map((r) => [r.id, r]));
    const other = backend(path);
    const changed = records.slice(0, 60).map((r, i) => ({ ...r, text: `${r.text} apple ferry ${i}`, tenant: 'a' }));
    await other.upsert(changed);
    for (const r of changed) current.set(r.id, r);
    const patched = records.slice(60, 120).map((r) => r.id);
    await other.patch(patched.map((id) => ({ id, attributes: { status: 'superseded' } })));
    for (const id of patched) {
      const r = current.get(id)!;
      current.set(id, { ...r, attributes: { ...r.attributes, status: 'superseded' } });
    }
    // Reinforcement-like patches of attributes the index does not hold log nothing.
    await other.patch(records.slice(0, 10).map((r) => ({ id: r.id, attributes: { accessCount: 3 } })));
    const deleted = records.slice(120, 160).map((r) => r.id);
    await other.delete(deleted);
    for (const id of deleted) current.delete(id);
    await other.close();
    const file = raw(path);
    expect(file.changes()).toBe(3); // one row per write, the snapshot left as it was (few changes)
    file.db.close();
    await expectSameAsInMemory(backend(path), [...current.values()]);
  });

  it("a restored index takes new records, rewrites and deletes (this connection's and another's) and ranks as the in-memory backend", async () => {
    const path = await savedStore(records);
    const fresh = randomRecords(60, 11).map((r) => ({ ...r, id: `new-${r.id}`, text: `${r.text} apple zanzibar` }));
    const current = new Map(records.map((r) => [r.id, r]));
    // As `agentmem remember` after a recall: a loaded (lazy) index, then new records written into it.
    const writer = backend(path);
    await touch(writer);
    await writer.upsert(fresh.slice(0, 20));
    for (const r of fresh.slice(0, 20)) current.set(r.id, r);
    await expectSameAsInMemory(writer, [...current.values()]);
    const rewritten = { ...fresh[3]!, text: 'ferry ferry crust' };
    await writer.upsert([rewritten]);
    current.set(rewritten.id, rewritten);
    const deleted = [fresh[5]!.id, fresh[6]!.id, records[2]!.id, records[9]!.id];
    await writer.delete(deleted);
    for (const id of deleted) current.delete(id);
    await expectSameAsInMemory(writer, [...current.values()]);
    await writer.close();
    // Another process's new records: the next connection catches up on its restored index.
    const other = backend(path);
    await other.upsert(fresh.slice(20));
    for (const r of fresh.slice(20)) current.set(r.id, r);
    await other.close();
    await expectSameAsInMemory(backend(path), [...current.values()]);
  });

  it('takes writes on a loaded snapshot: deleting most records compacts it, and it still ranks exactly', async () => {
    const path = fresh();
    const writer = backend(path);
    await touch(writer);
    await writer.upsert(records);
    await writer.close();
    const reader = backend(path);
    await expectSameAsInMemory(reader, records); // loaded from the snapshot
    const gone = records.slice(0, Math.ceil(records.length * 0.6)).map((r) => r.id);
    await reader.delete(gone);
    const kept = records.slice(gone.length);
    await expectSameAsInMemory(reader, kept);
    await reader.upsert(records.slice(0, 50));
    await expectSameAsInMemory(reader, [...records.slice(0, 50), ...kept]);
    await reader.close();
    await expectSameAsInMemory(backend(path), [...records.slice(0, 50), ...kept]); // saved at close
  });

  it('is built and saved at close by a bulk writer that never searched: the next connection restores it and ranks as a rebuild', async () => {
    const path = fresh();
    const writer = backend(path);
    await writer.upsert(records.slice(0, 600));
    await writer.upsert(records.slice(600));
    // Its writes reached the index as they happened: the close saves it, tokenising and reading nothing.
    expect(await closeCounting(writer)).toEqual({ tokenised: 0, reread: 0 });
    const file = raw(path);
    expect(file.snapshots()).toBe(1);
    // The save covers both writes: no change is left to re-read.
    expect(file.db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'keyword_changes'").pluck().get()).toBe(2);
    expect(file.db.prepare('SELECT generation FROM keyword_snapshot').pluck().get()).toBe(2);
    expect(file.changes()).toBe(0);
    const restored = await rankings(backend(path));
    file.db.exec('DELETE FROM keyword_snapshot');
    expect(await rankings(backend(path))).toEqual(restored); // a rebuild from the rows
    file.db.close();
    await expectSameAsInMemory(backend(path), records);
  });

  it('catches a saved index up at close after a bulk write by a writer that never searched', async () => {
    const path = await savedStore(records);
    const file = raw(path);
    const first = file.db.prepare('SELECT save FROM keyword_snapshot').pluck().get();
    expect(first).toEqual(expect.any(Number));
    const added = randomRecords(KEYWORD_SAVE_AFTER + 100, 11).map((r) => ({ ...r, id: `new-${r.id}` }));
    const writer = backend(path);
    await writer.upsert(added);
    await writer.close();
    expect(file.db.prepare('SELECT save FROM keyword_snapshot').pluck().get()).not.toBe(first);
    expect(file.changes()).toBe(0);
    file.db.close();
    await expectSameAsInMemory(backend(path), [...records, ...added]);
  });

  it('leaves a few writes of a writer that never searched logged: no load at close', async () => {
    const path = await savedStore(records.slice(0, -100));
    const file = raw(path);
    const save = file.db.prepare('SELECT save FROM keyword_snapshot').pluck().get();
    expect(save).toEqual(expect.any(Number));
    const writer = backend(path);
    await writer.upsert(records.slice(-100));
    await writer.close();
    expect(file.db.prepare('SELECT save FROM keyword_snapshot').pluck().get()).toBe(save);
    expect(file.changes()).toBe(1);
    file.db.close();
    await expectSameAsInMemory(backend(path), records);
  });

  it('a save that fails at close fails neither the close nor the store: the writes stay logged', async () => {
    const path = fresh();
    const writer = backend(path);
    await writer.upsert(records);
    // Another connection holds the write lock: the close's save is skipped (it does not wait).
    const holder = raw(path);
    holder.db.prepare('BEGIN IMMEDIATE').run();
    await expect(writer.close()).resolves.toBeUndefined();
    holder.db.prepare('ROLLBACK').run();
    expect(holder.snapshots()).toBe(0);
    expect(holder.changes()).toBe(1);
    // A save that throws (the snapshot table cannot be written) rolls back whole.
    const failing = backend(path);
    await failing.upsert(records.slice(0, 10).map((r) => ({ ...r, text: `${r.text} quokka` })));
    await failing.upsert(records.slice(10).map((r) => ({ ...r, text: `${r.text} quokka` })));
    holder.db.exec(
      "CREATE TRIGGER no_save BEFORE INSERT ON keyword_snapshot BEGIN SELECT RAISE(ABORT, 'disk full'); END",
    );
    await expect(failing.close()).resolves.toBeUndefined();
    expect(holder.snapshots()).toBe(0);
    expect(holder.changes()).toBe(3);
    expect(holder.db.prepare('SELECT count(*) FROM keyword_parts').pluck().get()).toBe(0);
    holder.db.exec('DROP TRIGGER no_save');
    holder.db.close();
    const quokka = records.map((r) => ({ ...r, text: `${r.text} quokka` }));
    await expectSameAsInMemory(backend(path), quokka);
  });

  it('logs nothing for a write that rolls back', async () => {
    const path = fresh();
    const writer = backend(path);
    await writer.upsert(records.slice(0, 10));
    await expect(
      writer.transaction(async () => {
        await writer.upsert(records.slice(10, 20));
        throw new Error('abandon');
      }),
    ).rejects.toThrow('abandon');
    const file = raw(path);
    expect(file.changes()).toBe(1);
    file.db.close();
  });
});

describe('a bulk writer keeps the index as it writes (issue 30)', () => {
  const records = randomRecords(KEYWORD_SAVE_AFTER + 500, 5);

  /** The rankings of a connection restoring the saved index equal a rebuild's from the rows, and the in-memory backend's. */
  async function savedAsRebuilt(path: string, current: readonly BackendRecord[]) {
    const file = raw(path);
    expect(file.snapshots()).toBe(1);
    expect(file.changes()).toBe(0);
    const restored = await rankings(backend(path));
    file.db.exec('DELETE FROM keyword_snapshot');
    expect(await rankings(backend(path))).toEqual(restored);
    file.db.close();
    await expectSameAsInMemory(backend(path), current);
  }

  it('into an empty store: rewrites, held patches, deletes and a rolled-back transaction, saved at close as a rebuild ranks', async () => {
    const path = fresh();
    const writer = backend(path);
    await writer.upsert(records.slice(0, 600));
    await writer.upsert(records.slice(600));
    const current = new Map(records.map((r) => [r.id, r]));
    const rewritten = records.slice(0, 30).map((r) => ({ ...r, text: `${r.text} quokka ferry`, tenant: 'b' }));
    await writer.upsert(rewritten);
    for (const r of rewritten) current.set(r.id, r);
    const patched = records.slice(40, 70).map((r) => r.id);
    await writer.patch(patched.map((id) => ({ id, attributes: { status: 'superseded', occurredAt: 42 } })));
    for (const id of patched) {
      const r = current.get(id)!;
      current.set(id, { ...r, attributes: { ...r.attributes, status: 'superseded', occurredAt: 42 } });
    }
    const deleted = records.slice(80, 130).map((r) => r.id);
    await writer.delete(deleted);
    for (const id of deleted) current.delete(id);
    await expect(
      writer.transaction(async () => {
        await writer.upsert(records.slice(200, 260).map((r) => ({ ...r, text: 'zanzibar apple apple' })));
        await writer.delete(records.slice(300, 310).map((r) => r.id));
        throw new Error('abandon');
      }),
    ).rejects.toThrow('abandon');
    expect(await closeCounting(writer)).toEqual({ tokenised: 0, reread: 0 });
    await savedAsRebuilt(path, [...current.values()]);
  });

  it('into a small store with no saved index: loaded once many changes are logged, then kept, saved at close as a rebuild ranks', async () => {
    const path = fresh();
    const first = backend(path);
    await first.upsert(records.slice(0, 300));
    await first.close();
    expect(raw(path).snapshots()).toBe(0); // too few changes for its close to save
    const writer = backend(path);
    await writer.upsert(records.slice(300, 300 + KEYWORD_SAVE_AFTER));
    await writer.upsert(records.slice(300 + KEYWORD_SAVE_AFTER));
    const rewritten = records.slice(10, 20).map((r) => ({ ...r, text: 'crust crust paris' }));
    await writer.upsert(rewritten);
    await writer.delete([records[1]!.id, records[400]!.id]);
    // Loaded once at the commit that logged many changes, kept since: the close only saves it.
    expect(await closeCounting(writer)).toEqual({ tokenised: 0, reread: 0 });
    const current = new Map(records.map((r) => [r.id, r]));
    for (const r of rewritten) current.set(r.id, r);
    current.delete(records[1]!.id);
    current.delete(records[400]!.id);
    await savedAsRebuilt(path, [...current.values()]);
  });

  for (const last of [false, true])
    it(`with another connection's commits between its writes${last ? ' and after the last one' : ''}: saved at close as a rebuild ranks`, async () => {
      const path = fresh();
      const writer = backend(path);
      const other = backend(path);
      const current = new Map<string, BackendRecord>();
      const put = (rs: readonly BackendRecord[]) => {
        for (const r of rs) current.set(r.id, r);
      };
      await writer.upsert(records.slice(0, 700));
      put(records.slice(0, 700));
      // Another process's new records, rewrites of the writer's, a held patch and deletes.
      const theirs = randomRecords(30, 21).map((r) => ({ ...r, id: `other-${r.id}`, text: `${r.text} quokka` }));
      const rewritten = records.slice(0, 20).map((r) => ({ ...r, text: 'ferry zanzibar', tenant: 'a' }));
      await other.upsert([...theirs, ...rewritten]);
      put([...theirs, ...rewritten]);
      await other.patch(records.slice(30, 40).map((r) => ({ id: r.id, attributes: { kind: 'history' } })));
      for (const r of records.slice(30, 40))
        current.set(r.id, { ...r, attributes: { ...r.attributes, kind: 'history' } });
      await writer.upsert(records.slice(700, 1200));
      put(records.slice(700, 1200));
      const deleted = [records[50]!.id, records[900]!.id, theirs[0]!.id];
      await other.delete(deleted);
      for (const id of deleted) current.delete(id);
      await writer.upsert(records.slice(1200));
      put(records.slice(1200));
      if (last) {
        await other.delete([records[1300]!.id]);
        current.delete(records[1300]!.id);
      }
      await other.close(); // few changes: it leaves them logged
      // Its index was dropped at the write after the other's commit and not loaded again: the close
      // loads it (a catch-up or a rebuild), the path the cases above never take.
      const closed = await closeCounting(writer);
      expect(closed.tokenised).toBeGreaterThan(0);
      expect(closed.reread).toBeGreaterThan(0);
      await savedAsRebuilt(path, [...current.values()]);
    });
});

describe('a load inside a transaction', () => {
  const records = randomRecords(KEYWORD_SAVE_AFTER + 500, 5);

  /** A store of `records` whose saved index is gone (as a file a version before saves left it). */
  async function unsavedStore(): Promise<string> {
    const path = await savedStore(records);
    const file = raw(path);
    file.db.exec('DELETE FROM keyword_snapshot; DELETE FROM keyword_parts');
    file.db.close();
    return path;
  }

  it('that rebuilt the index saves it when the transaction commits, as a search outside one does at once', async () => {
    const path = await unsavedStore();
    const b = backend(path);
    const added = { ...records[0]!, id: 'added', text: 'quokka ferry' };
    await b.transaction(async () => {
      await touch(b); // the first search of this process: a rebuild, inside the transaction
      await b.upsert([added]);
    });
    // Saved before any close: a process that ends without closing (or searches first inside a
    // transaction every time) does not leave every later process to rebuild it.
    const file = raw(path);
    expect(file.snapshots()).toBe(1);
    expect(file.changes()).toBe(0);
    file.db.close();
    await expectSameAsInMemory(backend(path), [...records, added]);
  });

  it('that rolls back saves nothing: the next search outside rebuilds and saves', async () => {
    const path = await unsavedStore();
    const b = backend(path);
    await expect(
      b.transaction(async () => {
        await touch(b);
        await b.upsert([{ ...records[0]!, id: 'gone', text: 'quokka' }]);
        throw new Error('abandon');
      }),
    ).rejects.toThrow('abandon');
    const file = raw(path);
    expect(file.snapshots()).toBe(0);
    await touch(b);
    expect(file.snapshots()).toBe(1);
    file.db.close();
    await expectSameAsInMemory(backend(path), records);
  });
});

describe('the keyword index saved in parts (schema 10)', () => {
  const records = randomRecords(KEYWORD_SAVE_AFTER + 500, 5);
  const saveId = (file: ReturnType<typeof raw>) =>
    file.db.prepare('SELECT save FROM keyword_snapshot').pluck().get() as number;

  it('is kept as a small header and parts of one save', async () => {
    const path = await savedStore(records);
    const file = raw(path);
    const header = file.db.prepare('SELECT length(data) FROM keyword_snapshot').pluck().get() as number;
    const parts = file.db.prepare('SELECT count(*) AS n, count(DISTINCT save) AS saves FROM keyword_parts').get();
    expect(parts).toEqual({ n: expect.any(Number), saves: 1 });
    expect((parts as { n: number }).n).toBeGreaterThan(3);
    expect(header).toBeLessThan(4096);
    expect(file.db.prepare('SELECT DISTINCT save FROM keyword_parts').pluck().get()).toBe(saveId(file));
    file.db.close();
    await expectSameAsInMemory(backend(path), records);
  });

  it('a connection whose saved parts another connection replaced loads again: its write lands and its searches rank exactly', async () => {
    // A word of its own in each record: many postings parts, most of which a search does not read.
    const many = randomRecords(2 * KEYWORD_SAVE_AFTER + 200, 9).map((r, i) => ({ ...r, text: `${r.text} word${i}` }));
    const path = await savedStore(many.slice(0, KEYWORD_SAVE_AFTER + 100));
    const a = backend(path);
    await touch(a); // a holds the first save's header, few of its parts read
    const b = backend(path);
    await touch(b);
    await b.upsert(many.slice(KEYWORD_SAVE_AFTER + 100)); // enough for b's close to save anew
    await b.close();
    const file = raw(path);
    expect(file.db.prepare('SELECT count(DISTINCT save) FROM keyword_parts').pluck().get()).toBe(1);
    file.db.close();
    // a's write reaches its index, which must read the parts it has not read: they are gone.
    const extra = { ...many[0]!, id: 'extra', text: 'apple ferry extra' };
    await a.upsert([extra]);
    await expectSameAsInMemory(a, [...many, extra]);
  });

  /** Another process's writes after the save: new records, rewrites, patches, deletes and a prune of many. */
  async function writtenAfterSave(path: string, searched: boolean) {
    const current = new Map(records.map((r) => [r.id, r]));
    const other = backend(path);
    if (searched) await touch(other); // as `agentmem remember`'s conflict check: its index loaded
    const added = randomRecords(40, 21).map((r) => ({ ...r, id: `new-${r.id}`, text: `${r.text} zanzibar quokka` }));
    await other.upsert(added);
    const rewritten = records.slice(0, 15).map((r) => ({ ...r, text: 'ferry crust quokka', tenant: 'a' }));
    await other.upsert(rewritten);
    for (const r of [...added, ...rewritten]) current.set(r.id, r);
    const patched = records.slice(20, 30).map((r) => r.id);
    await other.patch(patched.map((id) => ({ id, attributes: { status: 'superseded', occurredAt: 50 } })));
    for (const id of patched) {
      const r = current.get(id)!;
      current.set(id, { ...r, attributes: { ...r.attributes, status: 'superseded', occurredAt: 50 } });
    }
    const deleted = [added[1]!.id, added[2]!.id, ...records.slice(40, 50).map((r) => r.id)];
    await other.delete(deleted);
    const pruned = records.slice(100, 400).map((r) => r.id); // as `compact` removing pruned memories
    await other.delete(pruned);
    for (const id of [...deleted, ...pruned]) current.delete(id);
    await other.close();
    return [...current.values()];
  }

  for (const searched of [true, false])
    it(`another process's writes after the save (its index ${searched ? 'loaded' : 'never loaded'}) are caught up on as a rebuild ranks, the save kept`, async () => {
      const path = await savedStore(records);
      const before = saveId(raw(path));
      const current = await writtenAfterSave(path, searched);
      const caughtUp = backend(path);
      const ranked = await rankings(caughtUp);
      await expectSameAsInMemory(caughtUp, current);
      await caughtUp.close();
      const file = raw(path);
      expect(saveId(file)).toBe(before); // fewer changes than a save needs: the next start catches up again
      expect(file.changes()).toBeGreaterThan(0);
      file.db.exec('DELETE FROM keyword_snapshot'); // the next open rebuilds from the records
      file.db.close();
      expect(await rankings(backend(path))).toEqual(ranked);
    });

  it('a save of the previous format (no id buckets) still catches up exactly', async () => {
    const path = await savedStore(records);
    const file = raw(path);
    const header = JSON.parse(
      (file.db.prepare('SELECT data FROM keyword_snapshot').pluck().get() as Buffer).toString(),
    ) as Record<string, unknown>;
    expect(header.format).toBe(6);
    // As format 5 saved it: the same parts, the id buckets after them not named (left over here, never read).
    header.format = 5;
    delete header.idBuckets;
    file.db.prepare('UPDATE keyword_snapshot SET data = ?').run(Buffer.from(JSON.stringify(header)));
    const save = saveId(file);
    file.db.close();
    const current = await writtenAfterSave(path, true);
    await expectSameAsInMemory(backend(path), current);
    const after = raw(path);
    expect(saveId(after)).toBe(save); // read as it is, not rebuilt
    after.db.close();
  });

  it('a part that does not decode means a rebuild, saved under a new save id', async () => {
    const path = await savedStore(records);
    const file = raw(path);
    const before = saveId(file);
    file.db.prepare("UPDATE keyword_parts SET data = x'0100000000000000' WHERE part >= 2").run();
    await expectSameAsInMemory(backend(path), records);
    expect(saveId(file)).not.toBe(before);
    file.db.close();
    await expectSameAsInMemory(backend(path), records);
  });

  it('upgrades a version-9 file once: its one-blob index is dropped, rebuilt, saved in parts, and ranks as before', async () => {
    const path = fresh();
    const writer = backend(path);
    await writer.upsert(records);
    await writer.close();
    // The file as schema 9 left it: keyword_snapshot without a save id, holding one blob; no keyword_parts.
    const file = raw(path);
    file.db.exec(`
      DROP TABLE keyword_parts; DROP TABLE keyword_snapshot;
      CREATE TABLE keyword_snapshot (id INTEGER PRIMARY KEY CHECK (id = 1), generation INTEGER NOT NULL, data BLOB NOT NULL);
      INSERT INTO keyword_snapshot (id, generation, data) VALUES (1, 0, randomblob(5000));
    `);
    file.db.pragma('user_version = 9');
    file.db.close();
    const upgraded = backend(path);
    expect(upgraded.database.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    await expectSameAsInMemory(upgraded, records);
    const after = raw(path);
    expect(after.snapshots()).toBe(1);
    expect(after.db.prepare('SELECT count(*) FROM keyword_parts').pluck().get()).toBeGreaterThan(3);
    after.db.close();
    await expectSameAsInMemory(backend(path), records);
  });
});

describe('schema version 9', () => {
  it('upgrades a version-8 file once: the keyword index is built from its records, saved, and ranks as before', async () => {
    const path = fresh();
    const writer = backend(path);
    await writer.upsert(records8());
    await writer.close();
    // The file as schema 8 left it: versions 9 and 10 only added the keyword tables.
    const file = raw(path);
    file.db.exec(
      "DROP TABLE keyword_snapshot; DROP TABLE keyword_parts; DROP TABLE keyword_changes; DELETE FROM sqlite_sequence WHERE name = 'keyword_changes'",
    );
    file.db.pragma('user_version = 8');
    file.db.close();
    const upgraded = backend(path);
    expect(upgraded.database.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    await expectSameAsInMemory(upgraded, records8());
    const after = raw(path);
    expect(after.snapshots()).toBe(1); // the rebuild read every record: saved for the next process
    after.db.close();
    await expectSameAsInMemory(backend(path), records8());
  });
});

function records8() {
  return randomRecords(KEYWORD_SAVE_AFTER + 200, 8);
}
