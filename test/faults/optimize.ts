/**
 * kill -9 during `optimize` (SqliteBackend.optimize, `agentmem optimize`) on a store as an older
 * release leaves it: a hashing store (sparse vectors) whose sparse index's build is not finished (a
 * save of its first 500 rowids), with writes logged since, and no saved keyword index. Optimize
 * appends the rest of the build as a slice, saves the sparse index again for the logged changes,
 * rebuilds and saves the keyword index, and checkpoints the WAL: each a transaction of its own. After
 * each kill the file must pass SQLite's integrity check and hold every memory; dense search from
 * whatever the file saved must give sqlite-vec's scan's results, and keyword search a rebuild's;
 * optimize run again must finish the work (nothing left to build or catch up) with the same results.
 */
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BackendRecord, HashingEmbedder } from '@agentmem/core';
import { SqliteBackend } from '@agentmem/sqlite';
import Database from 'better-sqlite3';
import { buildSparse } from '../../packages/sqlite/src/vector/sparse-build';
import { type CrashResult, checkTrial, emptyResult, runChild, seededRandom } from './crash-trials';
import { syllableText } from './syllable-text';

const child = fileURLToPath(new URL('./optimize-child.ts', import.meta.url));
const embedder = new HashingEmbedder();
const QUERIES = ['zaiko brava tou', 'kalo miren tusa', 'dar po li', 'vo qi ne he'];

const text = (i: number) => syllableText(i, { seed: 7_000_003, syllables: 2, words: 6 });

function record(i: number): BackendRecord {
  const t = `memory ${i}: ${text(i)}`;
  return {
    id: `m${i}`,
    namespace: i % 4 ? 'a' : 'b',
    tenant: '',
    text: t,
    vector: embedder.embedOne(t),
    attributes: {},
    payload: {},
  };
}

/** Dense and keyword hits (ids and scores) of the queries and of some memories' own texts. */
async function hits(path: string, options: { readonly?: boolean; denseSearch?: 'exact' } = {}): Promise<string> {
  const b = new SqliteBackend({ path, ...options });
  try {
    const out: string[] = [];
    for (const q of [...QUERIES, text(0), text(777)]) {
      const dense = await b.search({ mode: 'dense', vector: embedder.embedOne(q), filter: { tenant: null }, k: 10 });
      const keyword = await b.search({ mode: 'keyword', text: q, filter: { tenant: null }, k: 10 });
      out.push(dense.map((h) => `${h.record.id}:${h.score.toFixed(6)}`).join(','));
      out.push(keyword.map((h) => `${h.record.id}:${h.score.toFixed(6)}`).join(','));
    }
    return out.join('\n');
  } finally {
    await b.close();
  }
}

function read<T>(path: string, fn: (db: Database.Database) => T): T {
  const db = new Database(path);
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

export async function optimizeTrials(short: boolean, seed = 1): Promise<CrashResult> {
  const trials = short ? 4 : 12;
  const base = short ? 3000 : 8000;
  const dir = mkdtempSync(join(tmpdir(), 'agentmem-faults-optimize-'));
  const random = seededRandom(seed);
  const result = emptyResult(
    `optimize (a sparse build of ${base} memories not finished, changes logged, no keyword save)`,
  );
  try {
    const template = join(dir, 'template.db');
    const writer = new SqliteBackend({ path: template });
    await writer.init({ dimension: embedder.dimension });
    for (let i = 0; i < base; i += 1000)
      await writer.upsert(Array.from({ length: Math.min(1000, base - i) }, (_, j) => record(i + j)));
    await writer.close();
    // Writes after the saves (logged for both indexes), then the state of an older release's store.
    const later = new SqliteBackend({ path: template });
    for (const i of [3, 400, base - 2]) await later.upsert([{ ...record(base + i), id: `m${i}` }]);
    await later.close();
    read(template, (raw) => {
      raw.exec(
        'DELETE FROM dense_snapshot; DELETE FROM dense_parts; DELETE FROM keyword_snapshot; DELETE FROM keyword_parts',
      );
      const { header, parts } = buildSparse(raw, embedder.dimension, 500);
      const insert = raw.prepare('INSERT INTO dense_parts (part, save, data) VALUES (?, 1, ?)');
      for (const [n, bytes] of parts.entries()) insert.run(n, Buffer.from(bytes));
      raw
        .prepare('INSERT INTO dense_snapshot (id, generation, save, data) VALUES (1, 0, 1, ?)')
        .run(Buffer.from(header));
      if ((raw.prepare('SELECT count(*) FROM dense_changes').pluck().get() as number) === 0)
        throw new Error('the template logged no dense change');
    });
    const copy = (to: string) => {
      for (const s of ['', '-wal', '-shm']) if (existsSync(template + s)) copyFileSync(template + s, to + s);
    };
    const expectedPath = join(dir, 'expected.db');
    copy(expectedPath);
    const expected = await hits(expectedPath, { readonly: true, denseSearch: 'exact' });
    const full = await runChild(child, [expectedPath], undefined);
    const optimizedAt = Number(/^optimized ([\d.]+)$/m.exec(full.out)?.[1]);
    if (!(optimizedAt > 0)) throw new Error(`the run did not complete without a kill: ${full.stderr}`);
    if ((await hits(expectedPath)) !== expected) throw new Error('optimize changed the results');
    for (let t = 0; t < trials; t++) {
      const db = join(dir, `trial-${t}.db`);
      copy(db);
      const run = await runChild(child, [db], { on: 'started', ms: random() * optimizedAt * 1.05 });
      const interrupted = !/^optimized /m.test(run.out);
      await checkTrial(result, t, db, interrupted, async (fail) => {
        const count = read(db, (raw) => raw.prepare('SELECT count(*) FROM records').pluck().get() as number);
        if (count !== base) {
          result.recordsLost += Math.max(0, base - count);
          fail(`${count} records, not ${base}`);
        }
        // As the kill left it: searched by a read-only connection (it saves nothing), then optimized again.
        if ((await hits(db, { readonly: true })) !== expected) fail('results differ from a rebuild after the kill');
        const again = new SqliteBackend({ path: db });
        await again.optimize();
        await again.close();
        const left = read(db, (raw) => ({
          partial: (raw.prepare('SELECT data FROM dense_snapshot').pluck().get() as Buffer)
            .toString()
            .includes('partial'),
          logged:
            (raw.prepare('SELECT count(*) FROM dense_changes').pluck().get() as number) +
            (raw.prepare('SELECT count(*) FROM keyword_changes').pluck().get() as number),
        }));
        if (left.partial || left.logged > 0) fail(`optimize run again left ${JSON.stringify(left)}`);
        if ((await hits(db)) !== expected) fail('results differ from a rebuild after optimize ran again');
      });
    }
    result.notes.push(`optimize took ${optimizedAt.toFixed(0)} ms uninterrupted`);
    return result;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
