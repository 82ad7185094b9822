import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BackendRecord, HashingEmbedder, type RecordFilter } from '@agentmem/core';
import { seededRandom } from '@agentmem/core/testing';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteBackend } from '../backend';
import { DENSE_SAVE_AFTER } from './dense-index';

// The lexical HashingEmbedder's vectors are sparse: dense search of them is exact, over the
// candidates of the sparse index (a query whose words no memory has used to scan every vector).
const embedder = new HashingEmbedder();
const dir = mkdtempSync(join(tmpdir(), 'agentmem-sqlite-sparse-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function corpus(count: number, seed: number): string[] {
  const random = seededRandom(seed);
  const vocabulary = Array.from({ length: 400 }, (_, i) => `w${i.toString(36)}k${(i * 7) % 13}`);
  return Array.from({ length: count }, () =>
    Array.from({ length: 3 + Math.floor(random() * 8) }, () => vocabulary[Math.floor(random() * 400)]).join(' '),
  );
}

function record(id: string, text: string, namespace = 'a'): BackendRecord {
  return {
    id,
    namespace,
    tenant: '',
    text,
    vector: embedder.embedOne(text),
    attributes: { keep: id.endsWith('3') },
    payload: {},
  };
}

/** Words in no stored text, and texts like the stored ones. */
const queries = ['zaiko brava tou', 'service port', 'just coupibroli sorofestu', ...corpus(6, 9)];
const filters: RecordFilter[] = [
  { tenant: '' },
  { tenant: '', namespaces: ['b'] },
  { tenant: null, where: { keep: true } },
];

async function results(b: SqliteBackend) {
  const out: unknown[] = [];
  for (const q of queries)
    for (const filter of filters)
      for (const k of [1, 10, 50]) {
        const hits = await b.search({ mode: 'dense', vector: embedder.embedOne(q), filter, k });
        out.push(hits.map((h) => [h.record.id, h.score]));
      }
  return out;
}

describe('dense search of sparse vectors (lexical embedder)', () => {
  const path = join(dir, 'store.db');

  it('gives the exhaustive scan’s ids and scores, also for a query whose words no memory has', async () => {
    const writer = new SqliteBackend({ path });
    await writer.init({ dimension: embedder.dimension });
    await writer.upsert(corpus(DENSE_SAVE_AFTER + 500, 1).map((t, i) => record(`r${i}`, t, i % 4 === 0 ? 'b' : 'a')));
    await writer.close(); // saves the index (sparse-save.test.ts): dropped here, as a file of an older release has none
    const raw = new Database(path);
    expect(raw.prepare('DELETE FROM dense_snapshot').run().changes).toBe(1);
    raw.close();
    const exact = new SqliteBackend({ path, denseSearch: 'exact' });
    const expected = await results(exact);
    // The first search builds the index from the table (one slice: the whole of a file this small) and
    // saves it; the next process restores it.
    const first = new SqliteBackend({ path });
    expect(await results(first)).toEqual(expected);
    await first.close();
    const db = new Database(path, { readonly: true });
    expect(db.prepare('SELECT count(*) FROM dense_snapshot').pluck().get()).toBe(1);
    db.close();
    const restored = new SqliteBackend({ path });
    expect(await results(restored)).toEqual(expected);
    // A read-only connection uses the saved index too.
    const readonly = new SqliteBackend({ path, readonly: true });
    expect(await results(readonly)).toEqual(expected);
    await Promise.all([exact.close(), restored.close(), readonly.close()]);
  });

  it('a save of the previous layout (format 1) is built again, saved in the new one, with the same results', async () => {
    const exact = new SqliteBackend({ path, denseSearch: 'exact' });
    const expected = await results(exact);
    const db = new Database(path);
    const header = JSON.parse(db.prepare('SELECT data FROM dense_snapshot').pluck().get() as string) as {
      format: string;
    };
    expect(header.format).toBe('agentmem-sparse-2');
    const old = Buffer.from(JSON.stringify({ ...header, format: 'agentmem-sparse-1' }));
    db.prepare('UPDATE dense_snapshot SET data = ?, save = save + 1').run(old);
    const stale = db.prepare('SELECT save FROM dense_snapshot').pluck().get();
    const b = new SqliteBackend({ path });
    expect(await results(b)).toEqual(expected);
    const saved = db.prepare('SELECT save, data FROM dense_snapshot').get() as { save: number; data: Buffer };
    expect(saved.save).not.toBe(stale);
    expect(JSON.parse(saved.data.toString()).format).toBe('agentmem-sparse-2');
    db.close();
    await Promise.all([b.close(), exact.close()]);
  });

  it('builds from a file of many scopes (read row by row) with the scan’s results', async () => {
    const many = join(dir, 'many.db');
    const writer = new SqliteBackend({ path: many });
    await writer.init({ dimension: embedder.dimension });
    await writer.upsert(corpus(DENSE_SAVE_AFTER + 200, 3).map((t, i) => record(`m${i}`, t, `ns${i % 70}`)));
    await writer.close();
    const exact = new SqliteBackend({ path: many, denseSearch: 'exact' });
    const b = new SqliteBackend({ path: many });
    for (const filter of [{ tenant: '' }, { tenant: '', namespaces: ['ns3', 'ns69'] }] as RecordFilter[])
      for (const q of queries.slice(0, 4)) {
        const search = (backend: SqliteBackend) =>
          backend.search({ mode: 'dense', vector: embedder.embedOne(q), filter, k: 10 });
        expect((await search(b)).map((h) => [h.record.id, h.score])).toEqual(
          (await search(exact)).map((h) => [h.record.id, h.score]),
        );
      }
    const db = new Database(many, { readonly: true });
    expect(db.prepare('SELECT count(*) FROM dense_snapshot').pluck().get()).toBe(1);
    db.close();
    await Promise.all([b.close(), exact.close()]);
  });

  it('follows writes: inside the transaction, after commit, other processes’ commits, deletes', async () => {
    const b = new SqliteBackend({ path });
    const other = new SqliteBackend({ path });
    const exact = new SqliteBackend({ path, denseSearch: 'exact' });
    try {
      const top = async (backend: SqliteBackend, text: string) =>
        (await backend.search({ mode: 'dense', vector: embedder.embedOne(text), filter: { tenant: '' }, k: 3 })).map(
          (h) => h.record.id,
        );
      const probe = 'zaiko brava tou';
      expect(await top(b, probe)).not.toContain('new');
      await expect(
        b.transaction(async () => {
          await b.upsert([record('new', probe)]);
          await b.delete(['r0', 'r1']);
          const inside = await top(b, probe);
          expect(inside[0]).toBe('new');
          expect(inside).not.toContain('r0');
          throw new Error('undo');
        }),
      ).rejects.toThrow('undo');
      expect(await top(b, probe)).not.toContain('new');
      await other.upsert([record('new', probe), record('r0', probe)]); // another connection commits
      expect((await top(b, probe)).slice(0, 2).sort()).toEqual(['new', 'r0']);
      await b.delete(['new']);
      expect(await top(b, probe)).toEqual(await top(exact, probe));
      expect(await results(b)).toEqual(await results(exact));
    } finally {
      await Promise.all([b.close(), other.close(), exact.close()]);
    }
  });
});
