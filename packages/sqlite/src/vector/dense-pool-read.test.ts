import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BackendRecord, encodeRescoring } from '@agentmem/core';
import { SemanticTestEmbedder } from '@agentmem/core/testing';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteBackend } from '../backend';
import { blobVector } from '../schema';
import { randomTexts } from '../test-fixtures/random-texts';
import { SqliteDenseIndex } from './dense-index';

// A restored index's first search reads the int8 codes of its pool from the codes table, row by row
// (poolRead): those codes must be the ones a load from the table gives, or the pool ranks otherwise.

const embedder = new SemanticTestEmbedder();
const dir = mkdtempSync(join(tmpdir(), 'agentmem-sqlite-dense-pool-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const VOCABULARY = Array.from({ length: 400 }, (_, i) => `p${i.toString(36)}z`);
const texts = (count: number, seed: number) => randomTexts(count, seed, VOCABULARY, 3, 9);

function record(id: string, text: string, namespace: string): BackendRecord {
  return { id, namespace, tenant: 't', text, vector: embedder.embedOne(text), attributes: {}, payload: {} };
}

/** A store whose dense index is saved (a search loaded it from the table, close saved it), and a copy without the save. */
async function stores(): Promise<{ saved: string; table: string }> {
  const saved = join(dir, `saved-${Math.random().toString(36).slice(2)}.db`);
  const b = new SqliteBackend({ path: saved });
  await b.init({ dimension: embedder.dimension });
  await b.upsert(texts(1500, 1).map((t, i) => record(`r${i}`, t, i % 4 === 0 ? 'b' : 'a')));
  await b.search({ mode: 'dense', vector: embedder.embedOne('x'), filter: { tenant: 't' }, k: 1 });
  await b.close();
  const table = saved.replace('saved-', 'table-');
  const source = new Database(saved);
  expect(source.prepare('SELECT count(*) FROM dense_parts').pluck().get()).toBeGreaterThan(0);
  await source.backup(table);
  source.close();
  const copy = new Database(table);
  copy.exec('DELETE FROM dense_snapshot; DELETE FROM dense_parts');
  copy.close();
  return { saved, table };
}

/** The first search's pool, best first by its int8 cosine, for each query (one new connection a file). */
function pools(path: string, restored: boolean): number[][] {
  const db = new Database(path, { readonly: true });
  try {
    const dense = new SqliteDenseIndex(db, embedder.dimension, false);
    const out: number[][] = [];
    for (const [i, q] of texts(4, 2).entries()) {
      const scope = i % 2 ? { tenant: 't', namespaces: ['a'] } : { tenant: 't' };
      expect(dense.size(scope)).toBeGreaterThan(0);
      out.push(dense.candidates(embedder.embedOne(q), scope, 400));
      // Restored: the rescoring parts were not read, so these codes came from the table one by one.
      if (i === 0 && restored)
        expect((dense as unknown as { index: { unreadParts: number } }).index.unreadParts).toBe(2);
    }
    return out;
  } finally {
    db.close();
  }
}

describe("a restored dense index's first search: the pool's codes read from the codes table", () => {
  it('ranks its pool as an index loaded from the table (sign-only codes: the floats are quantized)', async () => {
    const { saved, table } = await stores();
    const restored = pools(saved, true);
    expect(restored[0]).toHaveLength(400);
    expect(restored).toEqual(pools(table, false));
  });

  it('ranks its pool as an index loaded from the table where the file holds full codes (signs and int8)', async () => {
    const { saved, table } = await stores();
    // As files written before the table kept the signs alone: the int8 copy in the code.
    for (const path of [saved, table]) {
      const db = new Database(path);
      const update = db.prepare('UPDATE vector_codes SET code = ? WHERE rowid = ?');
      const rows = db.prepare('SELECT rowid, embedding FROM vector_codes').raw().all() as [number, Buffer][];
      db.transaction(() => {
        for (const [rowid, embedding] of rows) update.run(encodeRescoring(blobVector(embedding)), rowid);
      })();
      db.close();
    }
    expect(pools(saved, true)).toEqual(pools(table, false));
  });
});
