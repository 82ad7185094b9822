/**
 * kill -9 while the binary dense index is saved into the file: during the first dense search of a
 * store that has no saved index (it loads the codes table and saves), and during the close that saves
 * it again after many writes (rememberMany batches between the two). After each kill the file must pass
 * SQLite's integrity check and open, every memory of an acknowledged batch must be there, and dense
 * search must give the same results from the file's saved index (and the changes logged after it) as
 * from a load of the codes table, with each acknowledged memory found first by its own text.
 * With `hashing` (the default HashingEmbedder's sparse vectors) the index is the SparseIndex, and the
 * check compares it with sqlite-vec's scan. Its writer saved it at close; the template keeps only
 * the first 500 rowids of it (a build not finished, as a search of a store without a save leaves
 * it), so the child's first (no-match) dense search appends the rest as a slice (extendSparseSave)
 * and its close saves it whole again.
 */
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HashingEmbedder, MemoryStore } from '@agentmem/core';
import { SemanticTestEmbedder } from '@agentmem/core/testing';
import { SqliteBackend } from '@agentmem/sqlite';
import Database from 'better-sqlite3';
import { buildSparse } from '../../packages/sqlite/src/vector/sparse-build';
import { type CrashResult, checkTrial, emptyResult, type KillTrigger, runChild, seededRandom } from './crash-trials';
import { syllableText } from './syllable-text';

const child = fileURLToPath(new URL('./dense-save-child.ts', import.meta.url));
type Kind = 'semantic' | 'hashing';
const embedders: Record<Kind, SemanticTestEmbedder | HashingEmbedder> = {
  semantic: new SemanticTestEmbedder(),
  hashing: new HashingEmbedder(),
};
const QUERIES = ['harbour engine', 'violet lantern orbit', 'quiet river market', 'zaiko brava tou'];

/** Text of memory i (base memories are negative): distinct words, so no two memories are near-duplicates. */
const text = (i: number) => syllableText(i, { seed: 1_000_003, syllables: 3, words: 8 });

/** The content of the i-th memory the child writes. */
export function denseContent(i: number): string {
  return `dense ${i}: ${text(i)}`;
}

const baseContent = (i: number) => `base ${i}: ${text(-1 - i)}`;

interface ChildRun {
  closed: boolean;
  acked: number;
  /** ms since `started` of each line the child printed (loaded, closing, closed), as far as it got. */
  at: Record<string, number>;
  stderr: string;
}

/** Runs the child; kills it `kill.ms` after it printed the line `kill.on` (undefined: let it finish). */
async function runSaveChild(argv: string[], kill: KillTrigger | undefined): Promise<ChildRun> {
  const { out, stderr } = await runChild(child, argv, kill);
  const at: Record<string, number> = {};
  for (const m of out.matchAll(/^(\w+)(?: \d+)? ([\d.]+)$/gm)) at[m[1]!] = Number(m[2]);
  const acks = [...out.matchAll(/^ack (\d+) /gm)].map((m) => Number(m[1]));
  return { closed: 'closed' in at, acked: acks.length ? Math.max(...acks) : 0, at, stderr };
}

/** Dense hits (ids and scores) of the queries and of some memories' own texts, with a read-only backend. */
async function denseHits(
  path: string,
  own: string[],
  embedder: SemanticTestEmbedder | HashingEmbedder,
): Promise<{ hits: string; ownFirst: number }> {
  const backend = new SqliteBackend({ path, readonly: true });
  try {
    const out: string[] = [];
    for (const q of QUERIES) {
      const hits = await backend.search({
        mode: 'dense',
        vector: embedder.embedOne(q),
        filter: { tenant: null },
        k: 10,
      });
      out.push(hits.map((h) => `${h.record.id}:${h.score.toFixed(6)}`).join(','));
    }
    let ownFirst = 0;
    for (const content of own) {
      const hits = await backend.search({
        mode: 'dense',
        vector: embedder.embedOne(content),
        filter: { tenant: null },
        k: 3,
      });
      if (hits[0]?.record.text === content) ownFirst++;
      out.push(hits.map((h) => `${h.record.id}:${h.score.toFixed(6)}`).join(','));
    }
    return { hits: out.join('\n'), ownFirst };
  } finally {
    await backend.close();
  }
}

export async function denseSaveTrials(short: boolean, seed = 1, vectors: Kind = 'semantic'): Promise<CrashResult> {
  const embedder = embedders[vectors];
  const trials = short ? 4 : 12;
  const base = short ? 2000 : 6000;
  const batches = 4;
  const batch = short ? 300 : 500;
  const dir = mkdtempSync(join(tmpdir(), 'agentmem-faults-dense-'));
  const random = seededRandom(seed);
  const result = emptyResult(
    `a ${vectors === 'hashing' ? 'sparse' : 'dense'}-index save (first dense search of ${base} memories, then ${batches} batches of ${batch} and close)`,
  );
  try {
    // The template: memories written, never searched, so the file holds no saved dense index.
    const template = join(dir, 'template.db');
    const store = await MemoryStore.open({ backend: new SqliteBackend({ path: template }), embedder });
    for (let i = 0; i < base; i += 1000)
      await store.rememberMany(
        Array.from({ length: Math.min(1000, base - i) }, (_, j) => ({
          content: baseContent(i + j),
          type: 'user' as const,
        })),
      );
    await store.close();
    const copy = (to: string) => {
      for (const s of ['', '-wal', '-shm']) if (existsSync(template + s)) copyFileSync(template + s, to + s);
    };
    const saveOf = (path: string) => {
      const db = new Database(path, { readonly: true });
      try {
        return db.prepare('SELECT save FROM dense_snapshot WHERE id = 1').pluck().get() as number | undefined;
      } finally {
        db.close();
      }
    };
    if (vectors === 'hashing') {
      // A build of the sparse index not finished: its first slice (500 rowids) saved, the rest to do.
      if (saveOf(template) === undefined) throw new Error('the writer did not save the sparse index at close');
      const raw = new Database(template);
      raw.exec('DELETE FROM dense_snapshot; DELETE FROM dense_parts');
      const { header, parts } = buildSparse(raw, embedder.dimension, 500);
      const insert = raw.prepare('INSERT INTO dense_parts (part, save, data) VALUES (?, 1, ?)');
      for (const [n, bytes] of parts.entries()) insert.run(n, Buffer.from(bytes));
      raw
        .prepare('INSERT INTO dense_snapshot (id, generation, save, data) VALUES (1, 0, 1, ?)')
        .run(Buffer.from(header));
      raw.close();
    } else {
      // A bulk writer saves the index at close (issue 30): dropped, so that the child's first search
      // loads the codes table and saves it (the kills of that save).
      if (saveOf(template) === undefined) throw new Error('the writer did not save the dense index at close');
      const raw = new Database(template);
      raw.exec('DELETE FROM dense_snapshot; DELETE FROM dense_parts; DELETE FROM dense_changes');
      raw.close();
    }
    const fullPath = join(dir, 'full.db');
    copy(fullPath);
    const full = await runSaveChild([fullPath, String(batches), String(batch), vectors], undefined);
    if (!full.closed) throw new Error(`the run did not complete without a kill: ${full.stderr}`);
    const after = new Database(fullPath, { readonly: true });
    const logged = after.prepare('SELECT count(*) FROM dense_changes').pluck().get() as number;
    after.close();
    // Saved, and saved again at close (which deletes the changes it covers): both saves happened.
    if (saveOf(fullPath) === undefined || logged > 0) throw new Error('the uninterrupted run did not save at close');
    if (vectors === 'hashing' && saveOf(fullPath) === 1)
      throw new Error('the sparse index was not saved whole at close');
    const { loaded = 0, closing = 0, closed = 0 } = full.at;
    let inLoad = 0;
    let inClose = 0;
    for (let t = 0; t < trials; t++) {
      const db = join(dir, `trial-${t}.db`);
      copy(db);
      // A third of the kills in the first search (load and save), a third in the close (save), the rest anywhere.
      const kind = t % 3;
      const kill =
        kind === 0
          ? { on: 'started', ms: random() * loaded }
          : kind === 1
            ? { on: 'closing', ms: random() * (closed - closing) }
            : { on: 'started', ms: random() * closed * 1.05 };
      const run = await runSaveChild([db, String(batches), String(batch), vectors], kill);
      if (!run.closed) {
        if (!('loaded' in run.at)) inLoad++;
        else if ('closing' in run.at) inClose++;
      }
      await checkTrial(result, t, db, !run.closed, async (fail) => {
        const store = await MemoryStore.open({ backend: new SqliteBackend({ path: db }), embedder });
        const contents = new Set<string>();
        for await (const m of store.memories({ includeInactive: true })) contents.add(m.content);
        await store.close();
        let lost = 0;
        for (let i = 0; i < base; i++) if (!contents.has(baseContent(i))) lost++;
        for (let i = 0; i < run.acked; i++) if (!contents.has(denseContent(i))) lost++;
        if (lost > 0) fail(`${lost} acknowledged memories missing`);
        result.recordsLost += lost;
        const written = contents.size - base;
        let whole = written % batch === 0;
        for (let i = 0; i < written; i++) whole &&= contents.has(denseContent(i));
        if (!whole) {
          result.halfApplied++;
          fail(`${written} new memories: not whole batches`);
        }
        // Some memories of each kind, found first by their own text: none the index missed.
        const own = [0, 1, base - 1].map(baseContent);
        for (let i = 0; i < written; i += Math.max(1, Math.floor(written / 8))) own.push(denseContent(i));
        if (written > 0) own.push(denseContent(written - 1));
        const saved = await denseHits(db, own, embedder);
        if (saved.ownFirst !== own.length)
          fail(`${own.length - saved.ownFirst} memories not found first by their own text`);
        const raw = new Database(db);
        raw.exec('DELETE FROM dense_snapshot; DELETE FROM dense_parts');
        raw.close();
        if (saved.hits !== (await denseHits(db, own, embedder)).hits)
          fail('dense search from the saved index differs from a load of the codes table');
      });
    }
    result.notes.push(`${inLoad} killed in the first search, ${inClose} in the close`);
    return result;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
