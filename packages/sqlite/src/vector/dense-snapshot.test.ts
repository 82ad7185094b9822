import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BackendRecord } from '@agentmem/core';
import { SemanticTestEmbedder } from '@agentmem/core/testing';
import Database from 'better-sqlite3';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { SqliteBackend } from '../backend';
import { SCHEMA_VERSION } from '../schema';
import { randomTexts } from '../test-fixtures/random-texts';
import { DENSE_SAVE_AFTER } from './dense-index';

const embedder = new SemanticTestEmbedder();
const dir = mkdtempSync(join(tmpdir(), 'agentmem-sqlite-dense-snapshot-'));
let n = 0;
const fresh = () => join(dir, `store-${n++}.db`);
const open: SqliteBackend[] = [];
function backend(path: string): SqliteBackend {
  const b = new SqliteBackend({ path });
  open.push(b);
  return b;
}
afterEach(async () => {
  for (const b of open.splice(0)) await b.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const VOCABULARY = Array.from({ length: 500 }, (_, i) => `w${i.toString(36)}q`);
const texts = (count: number, seed: number) => randomTexts(count, seed, VOCABULARY, 4, 8);

function record(id: string, text: string, namespace = 'a'): BackendRecord {
  return { id, namespace, tenant: 't', text, vector: embedder.embedOne(text), attributes: {}, payload: {} };
}

/** Enough vectors that a load from the codes table is saved; two scopes. */
const records = texts(DENSE_SAVE_AFTER + 300, 1).map((text, i) => record(`r${i}`, text, i % 5 === 0 ? 'b' : 'a'));
const queries = texts(12, 2);

async function results(b: SqliteBackend, namespaces?: string[]) {
  const out: [string, number][][] = [];
  for (const q of queries) {
    const hits = await b.search({
      mode: 'dense',
      vector: embedder.embedOne(q),
      filter: { tenant: 't', ...(namespaces ? { namespaces } : {}) },
      k: 10,
    });
    out.push(hits.map((h) => [h.record.id, Number(h.score.toFixed(6))]));
  }
  return out;
}

function raw(path: string) {
  const db = new Database(path);
  return {
    db,
    save: () => db.prepare('SELECT save FROM dense_snapshot WHERE id = 1').pluck().get() as number | undefined,
    changes: () => db.prepare('SELECT count(*) FROM dense_changes').pluck().get() as number,
  };
}

/** A store written and searched once (the search loads the table and saves the index), closed. */
async function savedStore(): Promise<string> {
  const path = fresh();
  const writer = backend(path);
  await writer.init({ dimension: embedder.dimension });
  await writer.upsert(records);
  const file = raw(path);
  expect(file.save()).toBeUndefined();
  // No save yet: writes are not logged (the next load reads the table anyway).
  expect(file.changes()).toBe(0);
  await writer.search({ mode: 'dense', vector: embedder.embedOne('x'), filter: { tenant: 't' }, k: 1 });
  expect(file.save()).toBeDefined();
  file.db.close();
  await writer.close();
  return path;
}

/** What a load from the codes table gives: the same file without its saved index. */
async function fromTable(path: string) {
  const copy = fresh();
  const source = new Database(path);
  await source.backup(copy);
  source.close();
  const file = raw(copy);
  file.db.exec('DELETE FROM dense_snapshot; DELETE FROM dense_parts');
  file.db.close();
  return results(backend(copy));
}

describe('the dense binary index saved in the file (schema 11)', () => {
  it('a new connection restores it: the same results as a load from the codes table, without a new save', async () => {
    const path = await savedStore();
    const file = raw(path);
    const save = file.save();
    const b = backend(path);
    const restored = await results(b);
    expect(restored).toEqual(await fromTable(path));
    expect(await results(b, ['b'])).toEqual(await results(backend(path), ['b']));
    // Restored, not loaded from the table (that would have saved again under a new id).
    expect(file.save()).toBe(save);
    file.db.close();
  });

  it("catches up with another connection's writes logged since the save: new, changed and deleted vectors", async () => {
    const path = await savedStore();
    const a = backend(path);
    await results(a); // restored
    const other = backend(path);
    const probe = 'violet harbour engine sonnet';
    await other.upsert([record('new', probe), record('r3', 'lighthouse marmalade zebra quantum')]);
    await other.delete(['r4']);
    const file = raw(path);
    expect(file.changes()).toBe(2);
    const search = async (text: string) =>
      (await a.search({ mode: 'dense', vector: embedder.embedOne(text), filter: { tenant: 't' }, k: 3 })).map(
        (h) => h.record.id,
      );
    expect((await search(probe))[0]).toBe('new');
    expect((await search('lighthouse marmalade zebra quantum'))[0]).toBe('r3');
    expect(await search(records[4]!.text)).not.toContain('r4');
    expect(await search(records[3]!.text)).not.toContain('r3');
    // A new process: the save, caught up the same way, ranks as a load from the table.
    expect(await results(backend(path))).toEqual(await fromTable(path));
    file.db.close();
  });

  it('a header saved before it named the largest rowid is read alike: restored (no new save) and caught up on new rows', async () => {
    const path = await savedStore();
    const file = raw(path);
    const save = file.save();
    const header = JSON.parse(file.db.prepare('SELECT data FROM dense_snapshot WHERE id = 1').pluck().get() as string);
    expect(header.maxKey).toBe(records.length);
    delete header.maxKey;
    file.db.prepare('UPDATE dense_snapshot SET data = ? WHERE id = 1').run(Buffer.from(JSON.stringify(header)));
    const other = backend(path);
    await other.upsert([
      record('new', 'violet harbour engine sonnet'),
      record('r3', 'lighthouse marmalade zebra quantum'),
    ]);
    expect(await results(backend(path))).toEqual(await fromTable(path));
    expect(file.save()).toBe(save);
    file.db.close();
  });

  it('this connection keeps its own writes after restoring, and saves at close after many', async () => {
    const path = await savedStore();
    const file = raw(path);
    const save = file.save();
    const a = backend(path);
    await results(a);
    const more = texts(DENSE_SAVE_AFTER + 10, 3).map((text, i) => record(`m${i}`, text));
    await a.upsert(more);
    await a.delete(['r1', 'r2']);
    const hits = await a.search({ mode: 'dense', vector: more[5]!.vector!, filter: { tenant: 't' }, k: 1 });
    expect(hits[0]!.record.id).toBe('m5');
    const mine = await results(a);
    await a.close();
    expect(file.save()).not.toBe(save);
    expect(file.changes()).toBe(0);
    expect(await results(backend(path))).toEqual(mine);
    expect(mine).toEqual(await fromTable(path));
    file.db.close();
  });

  it('a bulk writer that never searched leaves it saved at close: the next connection restores it and ranks as a load from the table', async () => {
    const path = fresh();
    const writer = backend(path);
    await writer.init({ dimension: embedder.dimension });
    await writer.upsert(records);
    await writer.close();
    const file = raw(path);
    const save = file.save();
    expect(save).toBeDefined();
    expect(await results(backend(path))).toEqual(await fromTable(path));
    expect(file.save()).toBe(save); // restored, not loaded from the table again
    // A saved index, then many writes by a connection that never searched: caught up and saved anew.
    const more = texts(DENSE_SAVE_AFTER + 10, 3).map((text, i) => record(`m${i}`, text));
    const bulk = backend(path);
    await bulk.upsert(more);
    await bulk.close();
    expect(file.save()).not.toBe(save);
    expect(file.changes()).toBe(0);
    expect(await results(backend(path))).toEqual(await fromTable(path));
    file.db.close();
  });

  it('a writer of few vectors that never searched leaves them logged; a failed save fails no close', async () => {
    const path = await savedStore();
    const file = raw(path);
    const save = file.save();
    const few = backend(path);
    await few.upsert(texts(20, 4).map((text, i) => record(`f${i}`, text)));
    await few.close();
    expect(file.save()).toBe(save);
    expect(file.changes()).toBe(1);
    // Many writes, and a save that cannot be written: the close does not fail, the writes stay logged.
    const bulk = backend(path);
    await bulk.upsert(texts(DENSE_SAVE_AFTER + 10, 5).map((text, i) => record(`g${i}`, text)));
    file.db.exec("CREATE TRIGGER no_save BEFORE INSERT ON dense_parts BEGIN SELECT RAISE(ABORT, 'disk full'); END");
    await expect(bulk.close()).resolves.toBeUndefined();
    expect(file.save()).toBe(save);
    expect(file.changes()).toBe(2);
    file.db.exec('DROP TRIGGER no_save');
    expect(await results(backend(path))).toEqual(await fromTable(path));
    file.db.close();
  });

  it('parts replaced or undecodable: loads from the codes table (same results) and saves again', async () => {
    for (const damage of [
      'UPDATE dense_parts SET save = save + 1', // another save's parts: the header's are gone
      "UPDATE dense_parts SET data = x'00' WHERE part = 0", // a key and sign part that does not decode
      "UPDATE dense_snapshot SET data = x'7b7d'", // a header that is not one
    ]) {
      const path = await savedStore();
      const want = await fromTable(path);
      const file = raw(path);
      const save = file.save();
      file.db.exec(damage);
      expect(await results(backend(path))).toEqual(want);
      expect(file.save()).not.toBe(save);
      expect(await results(backend(path))).toEqual(want);
      file.db.close();
    }
  });

  it('a rescoring part that does not decode, met after the first search: loads again, results unchanged', async () => {
    const path = await savedStore();
    const want = await fromTable(path);
    const file = raw(path);
    file.db.exec("UPDATE dense_parts SET data = x'00' WHERE part % 2 = 1");
    const b = backend(path);
    // The first search reads single codes, the next ones read parts ahead and meet the damage.
    expect(await results(b)).toEqual(want);
    expect(await results(b)).toEqual(want);
    file.db.close();
  });

  it('a connection that restored the index reloads after another connection saves a new one', async () => {
    const path = await savedStore();
    const a = backend(path);
    const before = await results(a);
    // Another connection writes many vectors, searches (loads) and saves at close.
    const other = backend(path);
    await results(other);
    await other.upsert(texts(DENSE_SAVE_AFTER + 5, 4).map((text, i) => record(`o${i}`, text)));
    await other.close();
    const after = await results(a);
    expect(after).toEqual(await fromTable(path));
    expect(after).not.toEqual(before);
  });

  it('upgrades a version-10 file once: the index is loaded from the table, saved, and ranks as before', async () => {
    const path = await savedStore();
    const want = await fromTable(path);
    const file = raw(path);
    file.db.exec(
      "DROP TABLE dense_snapshot; DROP TABLE dense_parts; DROP TABLE dense_changes; DELETE FROM sqlite_sequence WHERE name = 'dense_changes'",
    );
    file.db.pragma('user_version = 10');
    file.db.close();
    const upgraded = backend(path);
    expect(upgraded.database.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(await results(upgraded)).toEqual(want);
    const after = raw(path);
    expect(after.save()).toBeDefined();
    after.db.close();
    expect(await results(backend(path))).toEqual(want);
  });

  it('every vector deleted by another process: the next load clears the log and the save (an index of nothing is not saved)', async () => {
    const path = await savedStore();
    // Deleted by connections that each log fewer than a save's worth (none of them loads or saves).
    const ids = records.map((r) => r.id);
    const per = DENSE_SAVE_AFTER - 1;
    for (let from = 0; from < ids.length; from += per) {
      const b = new SqliteBackend({ path });
      await b.delete(ids.slice(from, from + per));
      await b.close();
    }
    const file = raw(path);
    expect(file.changes()).toBeGreaterThan(0);
    expect(file.save()).toBeDefined();
    // Its load catches up on more changes than a save's worth, to an index of nothing: the save clears.
    const b = backend(path);
    expect(await results(b)).toEqual(queries.map(() => []));
    expect(file.changes()).toBe(0);
    expect(file.save()).toBeUndefined();
    expect(file.db.prepare('SELECT count(*) FROM dense_parts').pluck().get()).toBe(0);
    // A new vector after: logged as before, and found.
    await backend(path).upsert([record('late', 'violet harbour engine sonnet')]);
    const hits = await backend(path).search({
      mode: 'dense',
      vector: embedder.embedOne('violet harbour engine sonnet'),
      filter: { tenant: 't' },
      k: 3,
    });
    expect(hits.map((h) => h.record.id)).toEqual(['late']);
    file.db.close();
  });
});
