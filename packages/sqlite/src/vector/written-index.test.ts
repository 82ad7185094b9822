import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BackendRecord, HashingEmbedder, type RecordFilter } from '@agentmem/core';
import { SemanticTestEmbedder } from '@agentmem/core/testing';
import Database from 'better-sqlite3';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { SqliteBackend } from '../backend';
import { randomTexts } from '../test-fixtures/random-texts';
import { DENSE_SAVE_AFTER, SqliteDenseIndex } from './dense-index';
import { SparseIndex } from './sparse-index';
import { WrittenIndex } from './written-index';

// A connection whose first write met an empty codes table builds the index from its own writes, so
// that its close (or first search) does not read every vector back (issue 30). The index it saves
// must be the one a load from the table gives; anything it cannot follow leaves the table's load.
const semantic = new SemanticTestEmbedder();
const hashing = new HashingEmbedder();
const dir = mkdtempSync(join(tmpdir(), 'agentmem-sqlite-written-index-'));
let n = 0;
const fresh = () => join(dir, `store-${n++}.db`);
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => {
  vi.restoreAllMocks();
});

const VOCABULARY = Array.from({ length: 400 }, (_, i) => `w${i.toString(36)}q${(i * 7) % 13}`);
const texts = (count: number, seed: number) => randomTexts(count, seed, VOCABULARY, 4, 8);

type Embedder = typeof semantic | typeof hashing;
function records(embedder: Embedder, count: number, seed: number, prefix = 'r'): BackendRecord[] {
  return texts(count, seed).map((text, i) => ({
    id: `${prefix}${i}`,
    namespace: i % 4 === 0 ? 'b' : 'a',
    tenant: 't',
    text,
    vector: embedder.embedOne(text),
    attributes: {},
    payload: {},
  }));
}

/** The file's saved index: header and parts in order (the save id left out: a new one each save). */
function savedParts(path: string): { header: Buffer; parts: Buffer[] } | undefined {
  const db = new Database(path, { readonly: true });
  try {
    const header = db.prepare('SELECT data FROM dense_snapshot WHERE id = 1').pluck().get() as Buffer | undefined;
    const parts = db.prepare('SELECT data FROM dense_parts ORDER BY part').pluck().all() as Buffer[];
    return header && { header, parts };
  } finally {
    db.close();
  }
}

/** A copy of the file without its saved index, loaded from the table by a search and saved (as before). */
async function savedFromTable(path: string, embedder: Embedder) {
  const copy = fresh();
  const source = new Database(path);
  await source.backup(copy);
  source.close();
  const db = new Database(copy);
  db.exec('DELETE FROM dense_snapshot; DELETE FROM dense_parts; DELETE FROM dense_changes');
  db.close();
  const b = new SqliteBackend({ path: copy });
  await b.search({ mode: 'dense', vector: embedder.embedOne('x'), filter: { tenant: 't' }, k: 1 });
  await b.close();
  return savedParts(copy);
}

const filters: RecordFilter[] = [{ tenant: 't' }, { tenant: 't', namespaces: ['b'] }];
/** Dense results of a new connection (restoring the save) and of exact search, which must agree. */
async function searched(path: string, embedder: Embedder) {
  const b = new SqliteBackend({ path });
  const exact = new SqliteBackend({ path, denseSearch: 'exact' });
  try {
    const out: unknown[] = [];
    for (const q of texts(6, 9))
      for (const filter of filters) {
        const request = { mode: 'dense' as const, vector: embedder.embedOne(q), filter, k: 10 };
        const got = (await b.search(request)).map((h) => [h.record.id, Number(h.score.toFixed(6))]);
        if (embedder === hashing)
          expect(got).toEqual((await exact.search(request)).map((h) => [h.record.id, Number(h.score.toFixed(6))]));
        out.push(got);
      }
    return out;
  } finally {
    await Promise.all([b.close(), exact.close()]);
  }
}

describe('the dense index built from a connection’s writes into an empty table', () => {
  it('dense vectors: a bulk writer’s close saves the index a load from the table saves, byte for byte, without reading the table', async () => {
    const path = fresh();
    const loads = vi.spyOn(SqliteDenseIndex.prototype as never, 'loadTable');
    const writer = new SqliteBackend({ path });
    await writer.init({ dimension: semantic.dimension });
    const all = records(semantic, DENSE_SAVE_AFTER + 300, 1);
    for (let i = 0; i < all.length; i += 400) await writer.upsert(all.slice(i, i + 400));
    await writer.close();
    expect(loads).not.toHaveBeenCalled();
    const saved = savedParts(path);
    expect(saved).toBeDefined();
    const table = await savedFromTable(path, semantic);
    expect(loads).toHaveBeenCalledTimes(1); // the spy sees the table's load
    expect(saved!.header.equals(table!.header)).toBe(true);
    expect(saved!.parts.length).toBe(table!.parts.length);
    for (const [i, part] of saved!.parts.entries()) expect(part.equals(table!.parts[i]!)).toBe(true);
  });

  it('dense vectors: a search after the writes ranks from it (no load), and later writes join it', async () => {
    const path = fresh();
    const loads = vi.spyOn(SqliteDenseIndex.prototype as never, 'loadTable');
    const writer = new SqliteBackend({ path });
    await writer.init({ dimension: semantic.dimension });
    await writer.upsert(records(semantic, 600, 2));
    const query = { mode: 'dense' as const, vector: semantic.embedOne('w1q1 w2q2'), filter: { tenant: 't' }, k: 10 };
    const before = await writer.search(query);
    await writer.upsert(records(semantic, 600, 3, 's'));
    const after = await writer.search(query);
    await writer.close();
    expect(loads).not.toHaveBeenCalled();
    const reopened = new SqliteBackend({ path });
    expect((await reopened.search(query)).map((h) => h.record.id)).toEqual(after.map((h) => h.record.id));
    await reopened.close();
    expect(before.length).toBe(10);
  });

  it('sparse vectors: the writer’s own searches after its writes (the builder’s scratch given back) and after more writes give a fresh connection’s results', async () => {
    const path = fresh();
    const loads = vi.spyOn(SqliteDenseIndex.prototype as never, 'loadTable');
    const writer = new SqliteBackend({ path });
    const exact = new SqliteBackend({ path, denseSearch: 'exact' });
    await writer.init({ dimension: hashing.dimension });
    await writer.upsert(records(hashing, DENSE_SAVE_AFTER + 300, 7));
    const ranked = async (b: SqliteBackend) => {
      const out: unknown[] = [];
      for (const q of texts(6, 9))
        for (const filter of filters) {
          const hits = await b.search({ mode: 'dense', vector: hashing.embedOne(q), filter, k: 10 });
          out.push(hits.map((h) => [h.record.id, Number(h.score.toFixed(6))]));
        }
      return out;
    };
    const first = await ranked(writer);
    expect(first).toEqual(await ranked(exact));
    // Written after the index was built: they land in it (and in the file) as any write does.
    await writer.upsert(records(hashing, 400, 8, 's'));
    const after = await ranked(writer);
    expect(after).not.toEqual(first);
    expect(after).toEqual(await ranked(exact));
    await Promise.all([writer.close(), exact.close()]);
    expect(loads).not.toHaveBeenCalled();
    const reopened = new SqliteBackend({ path });
    expect(await ranked(reopened)).toEqual(after);
    await reopened.close();
  });

  it('sparse vectors: the saved index serves the scan’s results, without reading the table', async () => {
    const path = fresh();
    const loads = vi.spyOn(SqliteDenseIndex.prototype as never, 'loadTable');
    const writer = new SqliteBackend({ path });
    await writer.init({ dimension: hashing.dimension });
    const all = records(hashing, DENSE_SAVE_AFTER + 300, 4);
    for (let i = 0; i < all.length; i += 500) await writer.upsert(all.slice(i, i + 500));
    await writer.close();
    expect(loads).not.toHaveBeenCalled();
    expect(JSON.parse(savedParts(path)!.header.toString()).format).toBe('agentmem-sparse-2');
    await searched(path, hashing);
  });

  it.each([
    ['a delete', 'delete'],
    ['a rewritten vector', 'rewrite'],
    ['another connection’s commit', 'other'],
    ['a rolled-back batch (then more writes)', 'rollback'],
  ] as const)('%s leaves the load to the table: the same index saved as before', async (_, kind) => {
    for (const embedder of [semantic, hashing]) {
      const path = fresh();
      const loads = vi.spyOn(SqliteDenseIndex.prototype as never, 'loadTable');
      const writer = new SqliteBackend({ path });
      await writer.init({ dimension: embedder.dimension });
      const all = records(embedder, DENSE_SAVE_AFTER + 200, 5);
      await writer.upsert(all.slice(0, 600));
      if (kind === 'delete') await writer.delete(['r3']);
      if (kind === 'rewrite') await writer.upsert([{ ...all[5]!, vector: embedder.embedOne('w3q3 w4q4 w5q5') }]);
      if (kind === 'other') {
        const other = new SqliteBackend({ path });
        await other.upsert(records(embedder, 3, 6, 'o'));
        await other.close();
      }
      if (kind === 'rollback') {
        const bad = { ...all[700]!, vector: new Float32Array(3) }; // the wrong dimension: the batch fails whole
        await expect(writer.upsert([all[600]!, bad])).rejects.toThrow();
      }
      await writer.upsert(all.slice(600));
      await writer.close();
      // The rolled-back batch took nothing: the writes carried on into the same index.
      expect(loads).toHaveBeenCalledTimes(kind === 'rollback' ? 0 : 1);
      if (embedder === semantic) {
        const saved = savedParts(path)!;
        const table = (await savedFromTable(path, semantic))!;
        expect(saved.parts.map((p) => p.toString('base64'))).toEqual(table.parts.map((p) => p.toString('base64')));
      } else await searched(path, hashing);
      vi.restoreAllMocks();
    }
  });

  it('sparse vectors past its limit: it holds the first ones and leaves the rest to the table’s slices', () => {
    const written = new WrittenIndex(hashing.dimension, true, 0, 3);
    const vectors = ['a b', 'c d', 'e f', 'g h', 'i j'].map((t) => hashing.embedOne(t));
    const writes = vectors.map((vector, i) => ({
      rowid: i + 1,
      code: { tenant: 't', namespace: 'a', vector, encoded: new Uint8Array(48), sparse: true },
    }));
    expect(written.take(writes.slice(0, 2))).toBe(true);
    expect(written.take(writes.slice(2))).toBe(true);
    expect(written.size).toBe(3);
    const index = written.index() as SparseIndex;
    expect(index).toBeInstanceOf(SparseIndex);
    expect(index.through).toBe(3);
    // A write below what it took, or of the other kind, ends it.
    const again = new WrittenIndex(hashing.dimension, true, 0);
    expect(again.take([writes[1]!, writes[0]!])).toBe(false);
    expect(new WrittenIndex(hashing.dimension, false, 0).take([writes[0]!])).toBe(false);
  });
});
