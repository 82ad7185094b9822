/**
 * Recall latency at scale: p50/p95 of `MemoryStore.recall` (hybrid, k = 10,
 * no reinforcement) over the SQLite backend and the in-memory backend, next to
 * the naive reference on the same SQLite file: raw sqlite-vec `MATCH` + FTS5
 * `MATCH` + reciprocal rank fusion in JS. Goal: p50 <= 5 ms at 100k on 2 cores.
 *
 *   npm run bench -- recall [--sizes 10000,100000,1000000] [--queries 200] [--backends sqlite,naive,memory,parts,dense,postgres]
 *                           [--embedder hashing|semantic] [--entities] [--memory] [--mmap-bytes N]
 *
 * (`postgres` runs PGlite in this process, so its CPU columns include the server's work.)
 *
 * (`parts` adds the naive path's two queries timed alone, and the backend's own keyword search.) `--embedder semantic`
 * uses `SemanticTestEmbedder` (dense, non-lexical, equal fusion weights: the
 * path of every user of an embedding model); the default is the lexical
 * `HashingEmbedder`. The table also gives the process's resident memory (RSS)
 * after each size's queries, and the build time with embedding timed apart.
 *
 * Memories are generated deterministically: sentences of 8-20 words drawn from
 * a Zipf-distributed vocabulary of 5,000 pronounceable pseudo-words plus
 * English stop words, so BM25 has common and rare terms to work with; vectors
 * are the default 384-dim HashingEmbedder's. Queries are 3-6 words drawn the
 * same way.
 *
 * `--memory`: where the resident memory is when the RSS column is read (stderr; run node with --expose-gc
 * to see it after a full collection too). `--mmap-bytes N`: the store's memory map (default the backend's).
 *
 * `--entities`: every memory also names one or two people of 2,000 (Zipf, capitalised, mid-sentence) and
 * has one of 20 speakers (5,000 memories each at 100k: too common for recall to follow), and half the
 * queries name one of those people; the SQLite and in-memory rows then come twice, with entity evidence
 * off and on (the default), so the table shows what entities cost a recall.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type BackendRecord,
  fuseRrf,
  HashingEmbedder,
  InMemoryBackend,
  type MemoryBackend,
  MemoryStore,
  type SearchHit,
  STOPWORDS,
  words,
} from '@agentmem/core';
import { SemanticTestEmbedder, seededRandom } from '@agentmem/core/testing';
import type Database from 'better-sqlite3';

const WARMUP = 20;
const BATCH = 5000;

/** Pseudo-words of 2-4 syllables, the same for every seed (memories and queries share them). */
function vocabulary(): string[] {
  const random = seededRandom(1);
  const onsets = ['b', 'c', 'd', 'f', 'g', 'k', 'l', 'm', 'n', 'p', 'r', 's', 't', 'v', 'z', 'br', 'st', 'tr'];
  const vowels = ['a', 'e', 'i', 'o', 'u', 'ai', 'ou'];
  const vocabulary = new Set<string>();
  while (vocabulary.size < 5000) {
    let w = '';
    const syllables = 2 + Math.floor(random() * 3);
    for (let s = 0; s < syllables; s++)
      w += onsets[Math.floor(random() * onsets.length)]! + vowels[Math.floor(random() * vowels.length)]!;
    vocabulary.add(w);
  }
  return [...vocabulary];
}

/** Sentences of min..max words: Zipf (s = 1) over the vocabulary, a stop word one time in four. */
export function textGenerator(seed: number) {
  const random = seededRandom(seed);
  const vocab = vocabulary();
  const cdf: number[] = [];
  let total = 0;
  for (let i = 0; i < vocab.length; i++) {
    total += 1 / (i + 1);
    cdf.push(total);
  }
  const stop = [...STOPWORDS].slice(0, 60);
  const word = () => {
    if (random() < 0.25) return stop[Math.floor(random() * stop.length)]!;
    const x = random() * total;
    let lo = 0;
    let hi = cdf.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return vocab[lo]!;
  };
  return (min: number, max: number) => {
    const n = min + Math.floor(random() * (max - min + 1));
    return Array.from({ length: n }, word).join(' ');
  };
}

interface Timing {
  p50: number;
  p95: number;
  /** The same percentiles of the process's CPU time per query (user + system): robust to a busy machine. */
  cpuP50: number;
  cpuP95: number;
}

async function time(queries: readonly string[], fn: (q: string) => Promise<unknown> | unknown): Promise<Timing> {
  for (const q of queries.slice(0, WARMUP)) await fn(q);
  const wall: number[] = [];
  const cpu: number[] = [];
  for (const q of queries.slice(WARMUP)) {
    const start = performance.now();
    const startCpu = process.cpuUsage();
    await fn(q);
    const used = process.cpuUsage(startCpu);
    wall.push(performance.now() - start);
    cpu.push((used.user + used.system) / 1000);
  }
  const at = (ms: number[], p: number) =>
    [...ms].sort((a, b) => a - b)[Math.min(ms.length - 1, Math.floor(p * ms.length))]!;
  return { p50: at(wall, 0.5), p95: at(wall, 0.95), cpuP50: at(cpu, 0.5), cpuP95: at(cpu, 0.95) };
}

type BenchEmbedder = (HashingEmbedder | SemanticTestEmbedder) & { embedSeconds: number; embedCpuSeconds: number };

/** The chosen embedder, counting the time spent embedding (so ingest can be reported without it). */
function timedEmbedder(kind: string): BenchEmbedder {
  if (kind !== 'hashing' && kind !== 'semantic') throw new Error(`--embedder is hashing or semantic, got ${kind}`);
  const embedder = (kind === 'semantic' ? new SemanticTestEmbedder() : new HashingEmbedder()) as BenchEmbedder;
  const embed = embedder.embed.bind(embedder);
  embedder.embedSeconds = 0;
  embedder.embedCpuSeconds = 0;
  embedder.embed = async (texts, options) => {
    const start = performance.now();
    const startCpu = process.cpuUsage();
    const result = await embed(texts, options);
    const used = process.cpuUsage(startCpu);
    embedder.embedSeconds += (performance.now() - start) / 1000;
    embedder.embedCpuSeconds += (used.user + used.system) / 1e6;
    return result;
  };
  return embedder;
}

/** People of the `--entities` corpus: capitalised pseudo-words that are not in the vocabulary. */
function people(): string[] {
  const random = seededRandom(3);
  const out = new Set<string>();
  const words = vocabulary();
  const vocab = new Set(words);
  while (out.size < 2000) {
    const w = words[Math.floor(random() * words.length)]!.split('').reverse().join('');
    if (!vocab.has(w)) out.add(w[0]!.toUpperCase() + w.slice(1));
  }
  return [...out];
}

/** Names a Zipf-chosen person in a text, mid-sentence (`--entities`). */
export function namer(seed: number): (text: string) => string {
  const random = seededRandom(seed);
  const names = people();
  const cdf: number[] = [];
  let total = 0;
  for (let i = 0; i < names.length; i++) {
    total += 1 / (i + 1);
    cdf.push(total);
  }
  const pick = () =>
    names[
      Math.min(
        names.length - 1,
        cdf.findIndex((c) => c >= random() * total),
      )
    ]!;
  return (text) => {
    const words = text.split(' ');
    words.splice(1 + Math.floor(random() * Math.max(1, words.length - 1)), 0, pick());
    if (random() < 0.5) words.push('with', pick());
    return words.join(' ');
  };
}

/** rememberMany in batches; returns a label with the total time and the rate without embedding time. */
async function build(
  store: MemoryStore,
  embedder: BenchEmbedder,
  contents: readonly string[],
  speakers = 0,
): Promise<string> {
  const start = performance.now();
  const startCpu = process.cpuUsage();
  const embedBefore = embedder.embedSeconds;
  const embedCpuBefore = embedder.embedCpuSeconds;
  for (let i = 0; i < contents.length; i += BATCH) {
    await store.rememberMany(
      contents.slice(i, i + BATCH).map((content, j) => ({
        content,
        type: 'user' as const,
        ...(speakers > 0 ? { metadata: { speaker: `Speaker${(i + j) % speakers}` } } : {}),
      })),
    );
  }
  const total = (performance.now() - start) / 1000;
  const used = process.cpuUsage(startCpu);
  const embedding = embedder.embedSeconds - embedBefore;
  const rate = Math.round(contents.length / Math.max(1e-9, total - embedding));
  // CPU time as well: on a shared machine the wall rate says more about the other jobs than about ingest.
  const cpu = (used.user + used.system) / 1e6 - (embedder.embedCpuSeconds - embedCpuBefore);
  const cpuRate = Math.round(contents.length / Math.max(1e-9, cpu));
  return `${total.toFixed(1)} s (embedding ${embedding.toFixed(1)} s; ${rate.toLocaleString('en')}/s without, ${cpuRate.toLocaleString('en')}/s of CPU)`;
}

/** The naive path's FTS5 table (the store keeps none since schema 7: keyword search is in process). */
const NAIVE_FTS = 'naive_fts';
/** The reference path's own vec0 table (the store keeps each vector once, in vector_codes, since schema 13). */
const NAIVE_VECTORS = 'naive_vectors';

/**
 * An FTS5 index over the memories' text and context in the store's file, as the store kept one up to
 * schema 6 (external content, porter tokenizer; rows without text left out), and a vec0 table of the
 * vectors, as it kept one up to schema 12. Built after the timed ingest: they are the reference path's
 * cost, not the store's. Returns the CPU seconds it took.
 */
function buildNaiveFts(db: Database.Database, useVectorExtension: (db: Database.Database) => void): number {
  const start = process.cpuUsage();
  db.exec(`
    CREATE VIRTUAL TABLE ${NAIVE_FTS} USING fts5(
      text, context, content = 'records', content_rowid = 'rowid', tokenize = 'porter unicode61 remove_diacritics 2'
    );
    INSERT INTO ${NAIVE_FTS} (rowid, text, context) SELECT rowid, text, context FROM records WHERE text <> '' OR context <> '';
  `);
  const dimension = (db.prepare('SELECT dimension FROM vector_space').pluck().get() as number | undefined) ?? 0;
  if (dimension > 0) {
    // The backend loads sqlite-vec only where it calls it (its exact search): this vec0 table needs it now.
    useVectorExtension(db);
    db.exec(`
        CREATE VIRTUAL TABLE ${NAIVE_VECTORS} USING vec0(
          tenant TEXT partition key, namespace TEXT partition key, embedding float[${dimension}] distance_metric=cosine
        );
        INSERT INTO ${NAIVE_VECTORS} (rowid, tenant, namespace, embedding) SELECT rowid, tenant, namespace, embedding FROM vector_codes;
    `);
  }
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1e6;
}

/**
 * The naive path on the store's own SQLite file: embed the query, sqlite-vec
 * KNN and FTS5 bm25 (50 candidates each, as recall's pool), weighted RRF in
 * JS, then read the top 10 rows.
 */
function naiveRecall(db: Database.Database, embedder: BenchEmbedder, weights: { dense: number; keyword: number }) {
  const knn = db.prepare(
    `SELECT rowid, distance FROM ${NAIVE_VECTORS} WHERE embedding MATCH ? AND k = 50 AND tenant = '' AND namespace = 'user'`,
  );
  const fts = db.prepare(
    `SELECT rowid, -bm25(${NAIVE_FTS}) AS score FROM ${NAIVE_FTS} WHERE ${NAIVE_FTS} MATCH ? ORDER BY bm25(${NAIVE_FTS}) LIMIT 50`,
  );
  const fetch = db.prepare('SELECT id, text FROM records WHERE rowid IN (SELECT value FROM json_each(?))');
  const hit = (rowid: number, score: number): SearchHit => ({
    record: { id: String(rowid) } as BackendRecord,
    score,
  });
  const denseOnly = (query: string) =>
    (knn.all(Buffer.from(embedder.embedOne(query).buffer)) as { rowid: number; distance: number }[]).map((r) =>
      hit(r.rowid, 1 - r.distance),
    );
  const keywordOnly = (query: string) => {
    const terms = [...new Set(words(query).filter((w) => !STOPWORDS.has(w)))];
    if (terms.length === 0) return [];
    const rows = fts.all(terms.map((t) => `"${t}"`).join(' OR ')) as { rowid: number; score: number }[];
    return rows.map((r) => hit(r.rowid, r.score));
  };
  const hybrid = (query: string) => {
    const top = fuseRrf(denseOnly(query), keywordOnly(query), weights, 10).map((h) => Number(h.record.id));
    return fetch.all(JSON.stringify(top));
  };
  return { hybrid, denseOnly, keywordOnly };
}

function flag(args: string[], name: string): string | undefined {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
}

/** Copies every record (memories, history, meta) of one backend into another, page by page. */
async function copyRecords(from: MemoryStore, to: MemoryBackend, size = BATCH): Promise<void> {
  let batch: BackendRecord[] = [];
  for await (const record of from.scanRecords({ tenant: null }, true)) {
    batch.push(record);
    if (batch.length === size) {
      await to.upsert(batch);
      batch = [];
    }
  }
  await to.upsert(batch);
}

/**
 * Approximate dense recall@10 against exact on LoCoMo text: every turn of the dev split in one
 * in-memory store (both search modes), every question as a query, with the semantic test embedder.
 */
async function locomoDenseRecall(): Promise<string> {
  const { existsSync } = await import('node:fs');
  const { LOCOMO_DEV_PATH, loadLocomo } = await import('./locomo');
  if (!existsSync(LOCOMO_DEV_PATH)) return `LoCoMo: ${LOCOMO_DEV_PATH} not found, skipped`;
  const conversations = loadLocomo();
  const embedder = new SemanticTestEmbedder();
  const approximate = new InMemoryBackend();
  const exact = new InMemoryBackend({ denseSearch: 'exact' });
  const records: BackendRecord[] = conversations.flatMap((c) =>
    c.turns.map((t) => ({
      id: `${c.id}:${t.diaId}`,
      namespace: 'user',
      tenant: '',
      text: t.content,
      vector: embedder.embedOne(t.content),
      attributes: {},
      payload: {},
    })),
  );
  for (const b of [approximate, exact]) {
    await b.init({ dimension: embedder.dimension });
    await b.upsert(records);
  }
  let found = 0;
  let total = 0;
  for (const q of conversations.flatMap((c) => c.questions)) {
    const request = { mode: 'dense' as const, vector: embedder.embedOne(q.question), filter: { tenant: '' }, k: 10 };
    const want = new Set((await exact.search(request)).map((h) => h.record.id));
    found += (await approximate.search(request)).filter((h) => want.has(h.record.id)).length;
    total += want.size;
  }
  return `LoCoMo dev (${records.length} turns in one index, ${total / 10} questions, semantic test embedder): approximate dense recall@10 against exact = ${(found / total).toFixed(4)}`;
}

export async function run(args: string[]): Promise<void> {
  const sizes = (flag(args, 'sizes') ?? '10000,100000').split(',').map(Number);
  const nQueries = Number(flag(args, 'queries') ?? 200);
  const backends = (flag(args, 'backends') ?? 'sqlite,naive,memory').split(',');
  const embedder = timedEmbedder(flag(args, 'embedder') ?? 'hashing');
  const rows: { backend: string; n: number; build: string; timing: Timing; rss?: string }[] = [];
  // On Linux also the file-backed part: pages of the database file mapped by mmap_size (reclaimable page cache).
  const rss = () => {
    const total = Math.round(process.memoryUsage().rss / 2 ** 20);
    const file = /RssFile:\s+(\d+)/.exec(
      existsSync('/proc/self/status') ? readFileSync('/proc/self/status', 'utf8') : '',
    );
    return file ? `${total} (file ${Math.round(Number(file[1]) / 1024)})` : String(total);
  };
  /** `--memory`: where the resident memory is where the RSS column is read (stderr; with node's --expose-gc, after a full collection too). */
  const memoryReport = (label: string, collect = true) => {
    if (!args.includes('--memory')) return;
    const mb = (bytes: number) => Math.round(bytes / 2 ** 20);
    const show = (when: string) => {
      const u = process.memoryUsage();
      const status = existsSync('/proc/self/status') ? readFileSync('/proc/self/status', 'utf8') : '';
      const kib = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
      // The main malloc arena (SQLite's page cache, better-sqlite3's and the addons' allocations): the
      // resident part of the [heap] mapping, freed blocks that glibc keeps included.
      const smaps = existsSync('/proc/self/smaps') ? readFileSync('/proc/self/smaps', 'utf8') : '';
      const heap = /\[heap\]\n(?:.*\n)*?Rss:\s+(\d+)/.exec(smaps)?.[1];
      console.error(
        `${label} ${when}: RSS ${mb(u.rss)} MB (anonymous ${Math.round(kib('RssAnon') / 1024)}, file ${Math.round(kib('RssFile') / 1024)}, peak ${Math.round(kib('VmHWM') / 1024)}${heap === undefined ? '' : `, malloc heap ${Math.round(Number(heap) / 1024)}`}); ` +
          `V8 heap used ${mb(u.heapUsed)} of ${mb(u.heapTotal)}; external ${mb(u.external)} (ArrayBuffers ${mb(u.arrayBuffers)})`,
      );
    };
    show('as read');
    const gc = (globalThis as { gc?: () => void }).gc;
    if (gc && collect) {
      gc();
      show('after a full GC');
    }
  };
  let weightsUsed: { dense: number; keyword: number } | undefined;
  const entities = args.includes('--entities');
  const recallOf =
    (store: MemoryStore, entityEvidence = true) =>
    (q: string) =>
      store.recall(q, { k: 10, mode: 'hybrid', reinforce: false, entityEvidence });
  /** With `--entities`, a row with entity evidence off first, then the default. */
  const recallRows = async (backend: string, n: number, build: string, store: MemoryStore, queries: string[]) => {
    if (entities) {
      rows.push({
        backend: `${backend} (entity evidence off)`,
        n,
        build,
        timing: await time(queries, recallOf(store, false)),
      });
    }
    rows.push({ backend, n, build, timing: await time(queries, recallOf(store)), rss: rss() });
    memoryReport(backend);
  };
  const { SqliteBackend, useVectorExtension } = (await import('@agentmem/sqlite')) as {
    useVectorExtension: (db: Database.Database) => void;
    SqliteBackend: new (o: {
      path: string;
      denseSearch?: 'approximate' | 'exact';
      mmapBytes?: number;
    }) => MemoryBackend & { database: Database.Database };
  };
  const notes: string[] = [];
  for (const n of sizes) {
    const name = namer(11);
    const contents = Array.from({ length: n }, textGenerator(42).bind(null, 8, 20)).map((t) =>
      entities ? name(t) : t,
    );
    const queryName = namer(13);
    const queries = Array.from({ length: nQueries + WARMUP }, textGenerator(7).bind(null, 3, 6)).map((q, i) =>
      entities && i % 2 === 0 ? queryName(q) : q,
    );
    const dir = mkdtempSync(join(tmpdir(), 'agentmem-bench-'));
    try {
      // `--mmap-bytes N`: the store's memory map (the backend's default when not given), to measure its share of RSS.
      const mmap = flag(args, 'mmap-bytes');
      const backend = new SqliteBackend({
        path: join(dir, 'memory.db'),
        ...(mmap === undefined ? {} : { mmapBytes: Number(mmap) }),
      });
      const store = await MemoryStore.open({ backend, embedder });
      const built = await build(store, embedder, contents, entities ? 20 : 0);
      console.error(`sqlite ${n}: built in ${built}`);
      // Before the recalls, without a collection (it would change what the RSS column reads after them).
      memoryReport(`sqlite ${n} built`, false);
      if (backends.includes('sqlite')) await recallRows('SQLite: MemoryStore.recall', n, built, store, queries);
      weightsUsed = store.fusionWeights();
      // Its own connection mapping 256 MB, as the backend did before it mapped 64 MiB: the reference keeps
      // the CPU it was measured at (a vec0 scan costs ~30% more with 64 MiB mapped).
      const naiveBackend = new SqliteBackend({ path: join(dir, 'memory.db'), mmapBytes: 256 * 2 ** 20 });
      console.error(
        `${n}: naive FTS5 index built in ${buildNaiveFts(naiveBackend.database, useVectorExtension).toFixed(1)} s of CPU`,
      );
      const naive = naiveRecall(naiveBackend.database, embedder, weightsUsed);
      const matching = naiveBackend.database.prepare(
        `SELECT count(*) AS n FROM ${NAIVE_FTS} WHERE ${NAIVE_FTS} MATCH ?`,
      );
      const matched = queries.map((q) => {
        const terms = [...new Set(words(q).filter((w) => !STOPWORDS.has(w)))];
        return terms.length ? (matching.get(terms.map((t) => `"${t}"`).join(' OR ')) as { n: number }).n : 0;
      });
      console.error(
        `${n}: a query's words match ${Math.round(matched.reduce((a, b) => a + b, 0) / matched.length)} memories on average`,
      );
      if (backends.includes('naive')) {
        rows.push({
          backend: 'naive: raw vec0 MATCH + FTS5, RRF in JS',
          n,
          build: 'same file',
          timing: await time(queries, naive.hybrid),
        });
      }
      if (backends.includes('dense')) {
        // The binary index against exact search on the same file: recall@10 and the cost of each alone.
        const exact = new SqliteBackend({ path: join(dir, 'memory.db'), denseSearch: 'exact' });
        const filter = store.memoryFilter(['user']);
        const dense = (b: MemoryBackend, k: number) => (q: string) =>
          b.search({ mode: 'dense', vector: embedder.embedOne(q), filter, k });
        let found = 0;
        for (const q of queries.slice(WARMUP)) {
          const want = new Set((await dense(exact, 10)(q)).map((h) => h.record.id));
          found += (await dense(backend, 10)(q)).filter((h) => want.has(h.record.id)).length;
        }
        notes.push(`${n}: approximate dense recall@10 against exact = ${(found / (nQueries * 10)).toFixed(4)}`);
        rows.push({
          backend: 'part: dense k=50, binary index + rescoring',
          n,
          build: 'same file',
          timing: await time(queries, dense(backend, 50)),
        });
        rows.push({
          backend: 'part: dense k=50, exact (scan of vector_codes)',
          n,
          build: 'same file',
          timing: await time(queries, dense(exact, 50)),
        });
        await exact.close();
      }
      if (backends.includes('parts')) {
        rows.push({
          backend: 'part: raw vec0 MATCH k=50 only',
          n,
          build: 'same file',
          timing: await time(queries, naive.denseOnly),
        });
        rows.push({
          backend: 'part: raw FTS5 bm25 LIMIT 50 only',
          n,
          build: 'same file',
          timing: await time(queries, naive.keywordOnly),
        });
        const filter = store.memoryFilter(['user']);
        rows.push({
          backend: 'part: keyword k=50, in-process BM25F index (SqliteBackend.search)',
          n,
          build: 'same file',
          timing: await time(queries, (q) => backend.search({ mode: 'keyword', text: q, filter, k: 50 })),
        });
      }
      if (backends.includes('memory')) {
        // rememberMany on InMemoryBackend is quadratic (each duplicate check scans every record), so the
        // in-memory store gets the SQLite store's records copied in; recall does not care how they came.
        const memoryBackend = new InMemoryBackend();
        const memory = await MemoryStore.open({ backend: memoryBackend, embedder });
        const start = performance.now();
        await copyRecords(store, memoryBackend);
        const copied = `${((performance.now() - start) / 1000).toFixed(1)} s (copied)`;
        await recallRows('in-memory: MemoryStore.recall', n, copied, memory, queries);
        await memory.close();
      }
      if (backends.includes('postgres')) {
        const { startPglite } = await import('../test/postgres/pglite-server');
        const { PostgresBackend } = await import('@agentmem/postgres');
        const server = await startPglite();
        const pgBackend = new PostgresBackend({
          connectionString: `postgres://postgres@${server.host}:${server.port}/postgres`,
        });
        const pgStore = await MemoryStore.open({ backend: pgBackend, embedder });
        await pgStore.init();
        const start = performance.now();
        // 500 per statement: 5,000 HNSW inserts in WebAssembly outlast the 30 s statement timeout at 100k.
        await copyRecords(store, pgBackend, 500);
        const copied = `${((performance.now() - start) / 1000).toFixed(1)} s (copied)`;
        console.error(`postgres ${n}: ${copied}`);
        rows.push({
          backend: 'Postgres (PGlite, in-process): MemoryStore.recall',
          n,
          build: copied,
          timing: await time(queries, recallOf(pgStore)),
        });
        await pgStore.close();
        await server.stop();
      }
      await naiveBackend.close();
      await store.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const { cpus, loadavg, totalmem } = await import('node:os');
  console.log(
    `\nrecall latency, hybrid, k = 10, reinforce off; ${nQueries} queries after ${WARMUP} warm-up; ` +
      `${embedder.dimension}-dim ${embedder.id} (fusion: ${embedder.lexical ? 'keyword-first' : `RRF ${JSON.stringify(weightsUsed)}`}; the naive path RRF ${JSON.stringify(weightsUsed)}); ${cpus().length} x ${cpus()[0]?.model.trim()}, ` +
      `${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.versions.node}; load average ${loadavg()[0]!.toFixed(1)} ` +
      '(wall time suffers when it exceeds the cores; CPU time per query does not)\n',
  );
  console.log('| backend | memories | build | wall p50 ms | wall p95 ms | CPU p50 ms | CPU p95 ms | RSS MB |');
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const r of rows) {
    const t = r.timing;
    const cells = [t.p50, t.p95, t.cpuP50, t.cpuP95].map((x) => x.toFixed(2));
    const memory = r.rss ?? '';
    console.log(`| ${r.backend} | ${r.n.toLocaleString('en')} | ${r.build} | ${cells.join(' | ')} | ${memory} |`);
  }
  if (backends.includes('locomo')) notes.push(await locomoDenseRecall());
  for (const note of notes) console.log(`\n${note}`);
}
