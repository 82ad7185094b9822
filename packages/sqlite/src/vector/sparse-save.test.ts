import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BackendRecord, HashingEmbedder, type RecordFilter } from '@agentmem/core';
import { SemanticTestEmbedder } from '@agentmem/core/testing';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteBackend } from '../backend';
import { randomTexts } from '../test-fixtures/random-texts';
import { DENSE_SAVE_AFTER } from './dense-index';
import { buildSparse, extendSparseSave } from './sparse-build';
import { sparseSaveAtClose } from './sparse-save';

// A writer of sparse vectors leaves the sparse index saved at close, so that no search of a later
// process builds it (9-19 s at 1M on a loaded machine): the search restores it, with the scan's results.
const embedder = new HashingEmbedder();
const dir = mkdtempSync(join(tmpdir(), 'agentmem-sqlite-sparse-save-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const VOCABULARY = Array.from({ length: 300 }, (_, i) => `v${i.toString(36)}q${(i * 5) % 11}`);
const texts = (count: number, seed: number) => randomTexts(count, seed, VOCABULARY, 3, 8);

function record(id: string, text: string, namespace = 'a', vector = embedder.embedOne(text)): BackendRecord {
  return { id, namespace, tenant: '', text, vector, attributes: {}, payload: {} };
}

const queries = ['zaiko brava tou', 'nothing like it', ...texts(3, 7)];
const filters: RecordFilter[] = [{ tenant: '' }, { tenant: '', namespaces: ['b'] }];

async function results(b: SqliteBackend) {
  const out: unknown[] = [];
  for (const q of queries)
    for (const filter of filters)
      for (const k of [1, 10]) {
        const hits = await b.search({ mode: 'dense', vector: embedder.embedOne(q), filter, k });
        out.push(hits.map((h) => [h.record.id, h.score]));
      }
  return out;
}

/** The saved index's save id and format, or undefined when the file has none. */
function saved(path: string): { save: number; format: string; generation: number } | undefined {
  const db = new Database(path, { readonly: true });
  try {
    const row = db.prepare('SELECT save, generation, data FROM dense_snapshot WHERE id = 1').get() as
      | { save: number; generation: number; data: Buffer }
      | undefined;
    return row && { save: row.save, generation: row.generation, format: JSON.parse(row.data.toString()).format };
  } finally {
    db.close();
  }
}

async function write(path: string, records: BackendRecord[]): Promise<void> {
  const b = new SqliteBackend({ path });
  await b.init({ dimension: embedder.dimension });
  await b.upsert(records);
  await b.close();
}

/** Searches in a new process-like connection, and whether that changed the save (a build or catch-up saved). */
async function searchedAfter(path: string) {
  const before = saved(path);
  const b = new SqliteBackend({ path });
  const exact = new SqliteBackend({ path, denseSearch: 'exact' });
  try {
    const got = await results(b);
    expect(got).toEqual(await results(exact));
    return { before, after: saved(path) };
  } finally {
    await Promise.all([b.close(), exact.close()]);
  }
}

describe('the sparse index saved by writers', () => {
  it('a bulk writer’s close saves it: the next search restores it, with the scan’s results', async () => {
    const path = join(dir, 'bulk.db');
    await write(
      path,
      texts(DENSE_SAVE_AFTER + 300, 1).map((t, i) => record(`r${i}`, t, i % 3 ? 'a' : 'b')),
    );
    const { before, after } = await searchedAfter(path);
    expect(before?.format).toBe('agentmem-sparse-2');
    expect(after).toEqual(before); // not built, not saved again by the search
  });

  it('a new store is saved by its first writer, however few it wrote; later small writes are logged', async () => {
    const path = join(dir, 'small.db');
    await write(
      path,
      texts(40, 2).map((t, i) => record(`s${i}`, t, i % 2 ? 'a' : 'b')),
    );
    const first = saved(path);
    expect(first?.format).toBe('agentmem-sparse-2');
    await write(
      path,
      texts(5, 3).map((t, i) => record(`t${i}`, t)),
    );
    expect(saved(path)).toEqual(first); // a save exists: the 5 writes are logged, not saved at close
    const db = new Database(path, { readonly: true });
    expect(db.prepare('SELECT count(*) FROM dense_changes').pluck().get()).toBe(1);
    db.close();
    const { after } = await searchedAfter(path); // restored, the 5 caught up
    expect(after).toEqual(first);
  });

  it('a bulk writer on a saved store catches it up and saves it; a store without one (older release) is built', async () => {
    const path = join(dir, 'grow.db');
    await write(
      path,
      texts(200, 4).map((t, i) => record(`g${i}`, t)),
    );
    const first = saved(path);
    await write(
      path,
      texts(DENSE_SAVE_AFTER + 10, 5).map((t, i) => record(i < 100 ? `g${i}` : `h${i}`, t, 'b')),
    );
    const second = saved(path);
    expect(second?.save).not.toBe(first?.save);
    let { after } = await searchedAfter(path);
    expect(after).toEqual(second);
    // A store of the previous release: no save. Its next writer's close builds it.
    const db = new Database(path);
    db.prepare('DELETE FROM dense_parts').run();
    db.prepare('DELETE FROM dense_snapshot').run();
    db.close();
    await write(path, [record('late', 'zaiko brava tou')]);
    ({ after } = await searchedAfter(path));
    expect(after?.format).toBe('agentmem-sparse-2');
  });

  it('a close while another process holds the write lock saves nothing and fails nothing', async () => {
    const path = join(dir, 'locked.db');
    const b = new SqliteBackend({ path });
    await b.init({ dimension: embedder.dimension });
    await b.upsert(texts(60, 8).map((t, i) => record(`l${i}`, t)));
    const lock = new Database(path);
    lock.prepare('BEGIN IMMEDIATE').run();
    try {
      await b.close();
    } finally {
      lock.prepare('ROLLBACK').run();
      lock.close();
    }
    expect(saved(path)).toBeUndefined();
    // The next search builds it in memory (60 rows: saved by a search from 1,000), with the scan's results.
    expect((await searchedAfter(path)).after).toBeUndefined();
    await write(path, [record('l60', 'zaiko brava')]); // the next writer's close saves it
    expect(saved(path)?.format).toBe('agentmem-sparse-2');
  });

  it('leaves dense vectors (a binary index) and read-only connections alone', async () => {
    const semantic = new SemanticTestEmbedder();
    const path = join(dir, 'dense.db');
    const b = new SqliteBackend({ path });
    await b.init({ dimension: semantic.dimension });
    await b.upsert(texts(50, 6).map((t, i) => record(`d${i}`, t, 'a', semantic.embedOne(t))));
    await b.close();
    expect(saved(path)).toBeUndefined();
    const ro = new SqliteBackend({ path: join(dir, 'small.db'), readonly: true });
    await ro.search({ mode: 'dense', vector: embedder.embedOne('zaiko'), filter: { tenant: '' }, k: 3 });
    await ro.close();
  });

  it('policy: a binary index’s save is left alone, a finished sparse save waits for many writes', () => {
    const path = join(dir, 'policy.db');
    const db = new Database(path);
    db.exec('CREATE TABLE dense_snapshot (id INTEGER PRIMARY KEY, generation, save, data BLOB)');
    expect(sparseSaveAtClose(db, 0, DENSE_SAVE_AFTER)).toBe(false);
    expect(sparseSaveAtClose(db, 1, DENSE_SAVE_AFTER)).toBe(true); // no save
    // A save of the first layout, or of a build not finished, is no finished save.
    db.prepare('INSERT INTO dense_snapshot VALUES (1, 0, 1, \'{"format":"agentmem-sparse-1"}\')').run();
    expect(sparseSaveAtClose(db, 1, DENSE_SAVE_AFTER)).toBe(true);
    db.prepare(`UPDATE dense_snapshot SET data = '{"format":"agentmem-sparse-2-partial","through":9}'`).run();
    expect(sparseSaveAtClose(db, 1, DENSE_SAVE_AFTER)).toBe(true);
    db.prepare(`UPDATE dense_snapshot SET data = '{"format":"agentmem-sparse-2"}'`).run();
    expect(sparseSaveAtClose(db, 1, DENSE_SAVE_AFTER)).toBe(false);
    expect(sparseSaveAtClose(db, DENSE_SAVE_AFTER, DENSE_SAVE_AFTER)).toBe(true);
    db.prepare("UPDATE dense_snapshot SET data = x'00ff'").run();
    expect(sparseSaveAtClose(db, DENSE_SAVE_AFTER, DENSE_SAVE_AFTER)).toBe(false);
    db.close();
  });
});

describe('a build in slices (a file without a finished save)', () => {
  const path = join(dir, 'slices.db');
  const header = (db: Database.Database) =>
    JSON.parse((db.prepare('SELECT data FROM dense_snapshot').pluck().get() as Buffer).toString()) as {
      format: string;
      chunks: number[];
      through?: number;
    };

  it('searches exactly meanwhile (read-only too), follows writes, and a writable search carries it on', async () => {
    await write(
      path,
      texts(1500, 11).map((t, i) => record(`r${i}`, t, i % 3 ? 'a' : 'b')),
    );
    const db = new Database(path);
    // A store of an older release (no save), then two slices of 400 rowids, as a search and a close save them.
    db.prepare('DELETE FROM dense_parts').run();
    db.prepare('DELETE FROM dense_snapshot').run();
    const first = buildSparse(db, embedder.dimension, 400);
    const insert = db.prepare('INSERT INTO dense_parts (part, save, data) VALUES (?, 7, ?)');
    for (const [n, bytes] of first.parts.entries()) insert.run(n, Buffer.from(bytes));
    db.prepare('INSERT INTO dense_snapshot (id, generation, save, data) VALUES (1, 0, 7, ?)').run(
      Buffer.from(first.header),
    );
    expect(header(db)).toMatchObject({ format: 'agentmem-sparse-2-partial', chunks: [400] });
    expect(extendSparseSave(db, embedder.dimension, 400)).toBe(true);
    const through = header(db).through!;
    expect(header(db).chunks).toEqual([400, 400]);
    expect(db.prepare('SELECT count(*) FROM vector_codes WHERE rowid <= ?').pluck().get(through)).toBe(800);
    db.close();
    // Another process writes below and above `through`: the changes are logged (a save exists).
    const other = new SqliteBackend({ path });
    await other.upsert([
      record('r10', 'zaiko brava tou'),
      record('r1200', 'zaiko brava tou tou', 'b'),
      record('fresh', 'brava zaiko'),
    ]);
    await other.delete(['r20', 'r1300']);
    // Meanwhile: the saved slices and a scan of the rows above them (read-only: no slice added).
    const exact = new SqliteBackend({ path, denseSearch: 'exact' });
    const readonly = new SqliteBackend({ path, readonly: true });
    const expected = await results(exact);
    expect(await results(readonly)).toEqual(expected);
    await other.close(); // wrote 3 sparse vectors: one more slice of the build
    const after = new Database(path, { readonly: true });
    expect(header(after).chunks).toEqual([400, 400, 700]); // the rest (+1 new, -1 deleted) in one chunk: finished
    expect(header(after).format).toBe('agentmem-sparse-2');
    after.close();
    expect(await results(readonly)).toEqual(expected); // restored again: the finished save
    await Promise.all([exact.close(), readonly.close()]);
  });

  it('a partial save read by a read-only connection, and a writable search that finishes it', async () => {
    const db = new Database(path);
    db.prepare('DELETE FROM dense_parts').run();
    db.prepare('DELETE FROM dense_snapshot').run();
    const first = buildSparse(db, embedder.dimension, 500);
    const insert = db.prepare('INSERT INTO dense_parts (part, save, data) VALUES (?, 8, ?)');
    for (const [n, bytes] of first.parts.entries()) insert.run(n, Buffer.from(bytes));
    const generation = db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'dense_changes'").pluck().get() ?? 0;
    db.prepare('INSERT INTO dense_snapshot (id, generation, save, data) VALUES (1, ?, 8, ?)').run(
      generation,
      Buffer.from(first.header),
    );
    db.close();
    const writer = new SqliteBackend({ path });
    await writer.upsert([record('r5', 'zaiko tou'), record('r900', 'brava brava'), record('late', 'tou zaiko brava')]);
    await writer.delete(['r6']);
    const exact = new SqliteBackend({ path, denseSearch: 'exact' });
    const readonly = new SqliteBackend({ path, readonly: true });
    const expected = await results(exact);
    expect(await results(readonly)).toEqual(expected); // the partial index and a scan of the rest
    const check = new Database(path, { readonly: true });
    expect(header(check).format).toBe('agentmem-sparse-2-partial'); // read-only: never built
    const rest = check.prepare('SELECT count(*) FROM vector_codes WHERE rowid > ?').pluck().get(header(check).through);
    const searcher = new SqliteBackend({ path });
    const got = await results(searcher);
    expect(got).toEqual(expected); // its first search adds the rest as a slice
    expect(header(check)).toMatchObject({ format: 'agentmem-sparse-2', chunks: [500, rest] });
    check.close();
    await writer.upsert([record('r7', 'zaiko brava tou')]);
    expect(await results(searcher)).toEqual(await results(exact));
    expect(await results(readonly)).toEqual(await results(exact));
    await Promise.all([writer.close(), exact.close(), readonly.close(), searcher.close()]);
  });
});
