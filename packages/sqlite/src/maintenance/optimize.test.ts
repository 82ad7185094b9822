import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AgentMemoryError,
  type BackendRecord,
  type Embedder,
  HashingEmbedder,
  InMemoryBackend,
  MemoryStore,
  type OptimizeProgress,
} from '@agentmem/core';
import { SemanticTestEmbedder } from '@agentmem/core/testing';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteBackend } from '../backend';
import { randomTexts } from '../test-fixtures/random-texts';
import { buildSparse } from '../vector/sparse-build';

const dir = mkdtempSync(join(tmpdir(), 'agentmem-sqlite-optimize-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const hashing = new HashingEmbedder();
const semantic = new SemanticTestEmbedder();

const VOCABULARY = Array.from({ length: 300 }, (_, i) => `v${i.toString(36)}q${(i * 5) % 11}`);
const texts = (count: number, seed: number) => randomTexts(count, seed, VOCABULARY, 3, 8);

function records(embedder: Embedder & { embedOne(text: string): Float32Array }, from: number, list: string[]) {
  return list.map(
    (text, i): BackendRecord => ({
      id: `r${from + i}`,
      namespace: i % 3 ? 'a' : 'b',
      tenant: '',
      text,
      vector: embedder.embedOne(text),
      attributes: {},
      payload: {},
    }),
  );
}

async function write(path: string, list: BackendRecord[], dimension: number): Promise<void> {
  const b = new SqliteBackend({ path });
  await b.init({ dimension });
  await b.upsert(list);
  await b.close();
}

/** Dense and keyword hits (ids and scores) of some queries, no-match ones too. */
async function results(b: SqliteBackend, embedder: { embedOne(text: string): Float32Array }) {
  const out: unknown[] = [];
  for (const q of ['zaiko brava tou', ...texts(4, 99)])
    for (const filter of [{ tenant: '' }, { tenant: '', namespaces: ['b'] }]) {
      const dense = await b.search({ mode: 'dense', vector: embedder.embedOne(q), filter, k: 10 });
      const keyword = await b.search({ mode: 'keyword', text: q, filter, k: 10 });
      out.push(
        dense.map((h) => [h.record.id, h.score]),
        keyword.map((h) => [h.record.id, h.score]),
      );
    }
  return out;
}

/** How the file's saved indexes stand, read by a connection of its own. */
function status(path: string) {
  const db = new Database(path, { readonly: true });
  try {
    const dense = db.prepare('SELECT save, data FROM dense_snapshot WHERE id = 1').get() as
      | { save: number; data: Buffer }
      | undefined;
    return {
      denseFormat: dense && (JSON.parse(dense.data.toString()) as { format: string }).format,
      denseSave: dense?.save,
      denseLogged: db.prepare('SELECT count(*) FROM dense_changes').pluck().get() as number,
      keywordSave: db.prepare('SELECT save FROM keyword_snapshot WHERE id = 1').pluck().get() as number | undefined,
      keywordLogged: db.prepare('SELECT count(*) FROM keyword_changes').pluck().get() as number,
    };
  } finally {
    db.close();
  }
}

/** A store of an older release: its sparse index's build not finished (the first 500 rowids saved), changes logged since. */
async function unfinishedSparseStore(path: string): Promise<void> {
  await write(path, records(hashing, 0, texts(2000, 1)), hashing.dimension);
  // Written since the saves: logged for both indexes (rowids below and above the build's end).
  const b = new SqliteBackend({ path });
  await b.upsert(records(hashing, 10, texts(3, 2)));
  await b.upsert(records(hashing, 1500, texts(3, 3)));
  await b.close();
  // The sparse save replaced by one of the first 500 rowids (generation 0: the changes stay to re-read).
  const raw = new Database(path);
  raw.exec('DELETE FROM dense_snapshot; DELETE FROM dense_parts');
  const { header, parts } = buildSparse(raw, hashing.dimension, 500);
  const insert = raw.prepare('INSERT INTO dense_parts (part, save, data) VALUES (?, 1, ?)');
  for (const [n, bytes] of parts.entries()) insert.run(n, Buffer.from(bytes));
  raw.prepare('INSERT INTO dense_snapshot (id, generation, save, data) VALUES (1, 0, 1, ?)').run(Buffer.from(header));
  raw.close();
}

describe('SqliteBackend.optimize', () => {
  it('finishes a sparse build and saves both indexes: a new connection has nothing to build or catch up, with the same results', async () => {
    const path = join(dir, 'sparse.db');
    await unfinishedSparseStore(path);
    const before = status(path);
    expect(before.denseFormat).toBe('agentmem-sparse-2-partial');
    expect(before.denseLogged).toBeGreaterThan(0);
    expect(before.keywordLogged).toBeGreaterThan(0);
    const exact = new SqliteBackend({ path, denseSearch: 'exact', readonly: true });
    const expected = await results(exact, hashing);
    await exact.close();

    const b = new SqliteBackend({ path });
    const report = await b.optimize();
    // The same connection searches on from the new saves.
    expect(await results(b, hashing)).toEqual(expected);
    await b.close();
    expect(report).toMatchObject({
      provider: 'sqlite',
      slicesBuilt: 1,
      indexesSaved: ['sparse', 'keyword'],
      indexesCurrent: [],
      walCheckpointed: true,
      vacuumed: false,
    });
    expect(report.bytesBefore).toBeGreaterThan(0);
    expect(report.bytesAfter).toBeGreaterThan(0);
    const after = status(path);
    expect(after).toMatchObject({ denseFormat: 'agentmem-sparse-2', denseLogged: 0, keywordLogged: 0 });

    // A new connection restores both as saved: its searches save nothing, and give the same results.
    const fresh = new SqliteBackend({ path });
    expect(await results(fresh, hashing)).toEqual(expected);
    await fresh.close();
    expect(status(path)).toEqual(after);

    // Again: nothing to do, nothing rewritten.
    const again = new SqliteBackend({ path });
    const second = await again.optimize();
    await again.close();
    expect(second).toMatchObject({ slicesBuilt: 0, indexesSaved: [], indexesCurrent: ['sparse', 'keyword'] });
    expect(status(path)).toEqual(after);
  });

  it('tells onProgress each step as it starts and each slice with its vector count; an error it throws ends the call, the steps done kept', async () => {
    const path = join(dir, 'progress.db');
    await unfinishedSparseStore(path);
    const raw = new Database(path, { readonly: true });
    const vectors = raw.prepare('SELECT count(*) FROM vector_codes').pluck().get() as number;
    raw.close();
    const b = new SqliteBackend({ path });
    const events: OptimizeProgress[] = [];
    const report = await b.optimize({ vacuum: true, onProgress: (event) => events.push(event) });
    expect(events.map(({ step, slicesBuilt }) => [step, slicesBuilt])).toEqual([
      ['slice', 1], // the rest of the build: one slice of 65,536 rows after the first 500
      ['dense-save', 1], // the changes logged since
      ['keyword-save', 1],
      ['vacuum', 1],
      ['checkpoint', 1],
    ]);
    expect(events[0]).toMatchObject({ vectorsBuilt: vectors, vectorsTotal: vectors });
    expect(events.map((e) => e.ms)).toEqual([...events.map((e) => e.ms)].sort((x, y) => x - y));
    expect(report.slicesBuilt).toBe(1);
    await expect(b.optimize({ onProgress: 'log' as unknown as () => void })).rejects.toThrow(
      /onProgress is a function/,
    );
    await b.close();

    // A callback that throws (a caller giving up) ends the call there: the build's slices are kept.
    const stopped = join(dir, 'progress-stopped.db');
    await unfinishedSparseStore(stopped);
    const c = new SqliteBackend({ path: stopped });
    const thrown = await c
      .optimize({
        onProgress: (event) => {
          if (event.step === 'dense-save') throw new Error('enough');
        },
      })
      .catch((e: unknown) => e);
    expect((thrown as Error).message).toBe('enough');
    await c.close();
    expect(status(stopped)).toMatchObject({ denseFormat: 'agentmem-sparse-2' });
    expect(status(stopped).keywordLogged).toBeGreaterThan(0);
  });

  it('saves the binary index and the keyword index of a store that has neither saved', async () => {
    const path = join(dir, 'dense.db');
    await write(path, records(semantic, 0, texts(300, 4)), semantic.dimension);
    const raw = new Database(path);
    raw.exec(
      'DELETE FROM dense_snapshot; DELETE FROM dense_parts; DELETE FROM dense_changes; DELETE FROM keyword_snapshot; DELETE FROM keyword_parts',
    );
    raw.close();
    const exact = new SqliteBackend({ path, denseSearch: 'exact', readonly: true });
    const expected = await results(exact, semantic);
    await exact.close();

    const b = new SqliteBackend({ path });
    const report = await b.optimize();
    await b.close();
    expect(report).toMatchObject({ slicesBuilt: 0, indexesSaved: ['dense', 'keyword'], indexesCurrent: [] });
    const after = status(path);
    expect(after.denseSave).toBeDefined();
    expect(after.keywordSave).toBeDefined();
    expect(after).toMatchObject({ denseLogged: 0, keywordLogged: 0 });
    const fresh = new SqliteBackend({ path });
    expect(await results(fresh, semantic)).toEqual(expected);
    await fresh.close();
    expect(status(path)).toEqual(after);
  });

  it('keeps the fixed planner statistics of the schema (no ANALYZE), vacuum or not', async () => {
    const path = join(dir, 'stats.db');
    await write(path, records(hashing, 0, texts(3000, 8)), hashing.dimension);
    const stats = () => {
      const db = new Database(path, { readonly: true });
      try {
        return db
          .prepare("SELECT tbl, idx, stat FROM sqlite_stat1 WHERE tbl <> 'logged_batches' ORDER BY tbl, idx")
          .all();
      } finally {
        db.close();
      }
    };
    const before = stats();
    expect(before).toContainEqual({ tbl: 'records', idx: 'records_memory_id', stat: '1000000 5' });
    const b = new SqliteBackend({ path });
    await results(b, hashing); // the tables this connection queried are those an ANALYZE would pick
    await b.optimize({ vacuum: true });
    await b.close();
    expect(stats()).toEqual(before);
  });

  it('vacuum gives back the pages deleted rows left, and the results stay', async () => {
    const path = join(dir, 'vacuum.db');
    await write(path, records(semantic, 0, texts(1500, 5)), semantic.dimension);
    const b = new SqliteBackend({ path });
    await b.delete(Array.from({ length: 1200 }, (_, i) => `r${i}`));
    const expected = await results(b, semantic);
    const report = await b.optimize({ vacuum: true });
    expect(report.vacuumed).toBe(true);
    expect(report.bytesAfter).toBeLessThan(report.bytesBefore / 2);
    expect(await results(b, semantic)).toEqual(expected);
    await b.close();
    const fresh = new SqliteBackend({ path });
    expect(await results(fresh, semantic)).toEqual(expected);
    await fresh.close();
  });

  it('refuses a read-only connection, a call inside a transaction and bad options, and stops on an aborted signal, changing nothing', async () => {
    const path = join(dir, 'refused.db');
    await unfinishedSparseStore(path);
    const before = status(path);
    const ro = new SqliteBackend({ path, readonly: true });
    await expect(ro.optimize()).rejects.toThrow(/opened read-only; open it without \{ readonly: true \} to optimize/);
    await ro.close();

    const b = new SqliteBackend({ path });
    await expect(b.transaction(() => b.optimize())).rejects.toThrow(/cannot run inside a transaction/);
    await expect(b.optimize({ vacuum: 'yes' as unknown as boolean })).rejects.toThrow(/vacuum is true or false/);
    const controller = new AbortController();
    controller.abort();
    const aborted = await b.optimize({ abortSignal: controller.signal }).catch((e: unknown) => e);
    expect(AgentMemoryError.isInstance(aborted) && aborted.code).toBe('ABORTED');
    await b.close();
    expect(status(path)).toEqual(before);
  });

  it('finishes on a store whose every memory was deleted: the logs go, nothing is left to catch up, searches find nothing', async () => {
    // Semantic (binary index) with few changes; hashing (sparse index) with deletes past the keyword
    // index's rebuild line, made by connections that each logged too few to save at close.
    for (const [embedder, count, slices] of [
      [semantic, 5, 1],
      [hashing, 2500, 3],
    ] as const) {
      const path = join(dir, `emptied-${count}.db`);
      const list = records(embedder, 0, texts(count, 7));
      await write(path, list, embedder.dimension);
      const first = new SqliteBackend({ path });
      await first.optimize();
      await first.close();
      const per = Math.ceil(count / slices);
      for (let from = 0; from < count; from += per) {
        const b = new SqliteBackend({ path });
        await b.delete(list.slice(from, from + per).map((r) => r.id));
        await b.close();
      }
      expect(status(path).denseLogged + status(path).keywordLogged).toBeGreaterThan(0);

      const b = new SqliteBackend({ path });
      await b.optimize();
      // Cleared by optimize itself: the searches below would clear the dense log on their own load.
      expect(status(path)).toMatchObject({ denseLogged: 0, keywordLogged: 0 });
      expect(
        await b.search({ mode: 'dense', vector: embedder.embedOne(list[0]!.text), filter: { tenant: '' }, k: 5 }),
      ).toEqual([]);
      expect(await b.search({ mode: 'keyword', text: list[0]!.text, filter: { tenant: '' }, k: 5 })).toEqual([]);
      await b.close();
      expect(status(path)).toMatchObject({ denseLogged: 0, keywordLogged: 0 });
      // A second run has nothing to do.
      const again = new SqliteBackend({ path });
      expect((await again.optimize())?.indexesSaved).toEqual([]);
      await again.close();
    }
  });

  it('has nothing to do on :memory:, and MemoryStore.optimize is undefined for a backend without it', async () => {
    const b = new SqliteBackend({ path: ':memory:' });
    await b.init({ dimension: hashing.dimension });
    await b.upsert(records(hashing, 0, texts(20, 6)));
    expect(await b.optimize()).toMatchObject({ slicesBuilt: 0, indexesSaved: [], bytesBefore: 0, bytesAfter: 0 });
    await b.close();
    const store = await MemoryStore.open({ backend: new InMemoryBackend(), embedder: hashing });
    expect(await store.optimize()).toBeUndefined();
    await store.close();
  });
});
