/**
 * The Postgres backend on a real PostgreSQL server beside SQLite, in one run on the same memories: ingest
 * per second (`rememberMany` in batches of 5,000, embedding timed apart) and recall latency p50/p95
 * (`MemoryStore.recall`, hybrid, k = 10, reinforce off; Postgres dense search through its HNSW index).
 *
 *   npm run bench -- postgres-server [--sizes 10000,100000] [--queries 200] [--embedder hashing|semantic]
 *                                    [--locomo conv-26,conv-30]
 *
 * The server: DATABASE_URL, else a throwaway one from ../shared/postgres/start.sh (stopped afterwards).
 * Memories and queries are recall.ts's (Zipf pseudo-words, the same seeds). Client CPU per query is this
 * process's only: the server's work shows in wall time, not there. `--locomo` then runs the LoCoMo bench
 * (conversation ingest) on SQLite, PGlite and the real server for those conversations (`all` for the whole file).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Embedder, HashingEmbedder, type MemoryBackend, MemoryStore } from '@agentmem/core';
import { SemanticTestEmbedder } from '@agentmem/core/testing';
import { PostgresBackend } from '@agentmem/postgres';
import { SqliteBackend } from '@agentmem/sqlite';
import { textGenerator } from './recall';

const WARMUP = 20;
const BATCH = 5000;
const shared = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'shared', 'postgres');

function flag(args: string[], name: string): string | undefined {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
}

/** An embedder that adds up the wall time spent embedding (ingest is reported with and without it). */
function timed(kind: string): Embedder & { seconds: number } {
  if (kind !== 'hashing' && kind !== 'semantic') throw new Error(`--embedder is hashing or semantic, got ${kind}`);
  const embedder = (kind === 'semantic' ? new SemanticTestEmbedder() : new HashingEmbedder()) as unknown as Embedder & {
    seconds: number;
  };
  const embed = embedder.embed.bind(embedder);
  embedder.seconds = 0;
  embedder.embed = async (texts, options) => {
    const start = performance.now();
    try {
      return await embed(texts, options);
    } finally {
      embedder.seconds += (performance.now() - start) / 1000;
    }
  };
  return embedder;
}

async function ingest(store: MemoryStore, embedder: { seconds: number }, contents: readonly string[]) {
  const start = performance.now();
  const embedBefore = embedder.seconds;
  for (let i = 0; i < contents.length; i += BATCH) {
    await store.rememberMany(contents.slice(i, i + BATCH).map((content) => ({ content, type: 'user' as const })));
  }
  const total = (performance.now() - start) / 1000;
  const embedding = embedder.seconds - embedBefore;
  return { total, embedding, rate: contents.length / Math.max(1e-9, total - embedding) };
}

async function latency(queries: readonly string[], store: MemoryStore) {
  const recall = (q: string) => store.recall(q, { k: 10, mode: 'hybrid', reinforce: false });
  for (const q of queries.slice(0, WARMUP)) await recall(q);
  const wall: number[] = [];
  const cpu: number[] = [];
  for (const q of queries.slice(WARMUP)) {
    const start = performance.now();
    const startCpu = process.cpuUsage();
    await recall(q);
    const used = process.cpuUsage(startCpu);
    wall.push(performance.now() - start);
    cpu.push((used.user + used.system) / 1000);
  }
  const at = (ms: number[], p: number) =>
    [...ms].sort((a, b) => a - b)[Math.min(ms.length - 1, Math.floor(p * ms.length))]!;
  return [at(wall, 0.5), at(wall, 0.95), at(cpu, 0.5), at(cpu, 0.95)];
}

/** DATABASE_URL, or a throwaway server (and how to stop it). */
function server(): { url: string; stop: () => void } {
  if (process.env.DATABASE_URL) return { url: process.env.DATABASE_URL, stop: () => {} };
  const start = join(shared, 'start.sh');
  if (!existsSync(start)) {
    throw new Error(
      'Set DATABASE_URL to a PostgreSQL with pgvector (docs/postgres.md), or run beside ../shared/postgres.',
    );
  }
  const out = spawnSync('bash', [start], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  const vars = Object.fromEntries([...out.stdout.matchAll(/^export (\w+)=(.*)$/gm)].map((m) => [m[1]!, m[2]!]));
  if (out.status !== 0 || !vars.DATABASE_URL || !vars.PGDATA_DIR) throw new Error(`${start} failed`);
  const stop = () => void spawnSync('bash', [join(shared, 'stop.sh'), vars.PGDATA_DIR!], { stdio: 'ignore' });
  process.on('exit', stop);
  return { url: vars.DATABASE_URL, stop };
}

export async function run(args: string[]): Promise<void> {
  const sizes = (flag(args, 'sizes') ?? '10000,100000').split(',').map(Number);
  const nQueries = Number(flag(args, 'queries') ?? 200);
  const kind = flag(args, 'embedder') ?? 'hashing';
  const pg = server();
  process.env.DATABASE_URL = pg.url; // for --locomo's postgres-server rows
  const version = spawnSync(
    'psql',
    [
      pg.url,
      '-Atc',
      "SELECT split_part(current_setting('server_version'), ' ', 1) || ' + pgvector ' || extversion FROM pg_extension WHERE extname = 'vector'",
    ],
    { encoding: 'utf8' },
  ).stdout.trim();
  const rows: string[] = [];
  try {
    for (const n of sizes) {
      const contents = Array.from({ length: n }, textGenerator(42).bind(null, 8, 20));
      const queries = Array.from({ length: nQueries + WARMUP }, textGenerator(7).bind(null, 3, 6));
      const dir = mkdtempSync(join(tmpdir(), 'agentmem-bench-pg-'));
      const schema = `bench_pgserver_${process.pid}_${n}`;
      try {
        const stores: [string, () => MemoryBackend][] = [
          ['SQLite', () => new SqliteBackend({ path: join(dir, 'memory.db') })],
          [
            `PostgreSQL ${version || 'server'} (HNSW)`,
            () => new PostgresBackend({ connectionString: pg.url, schema, statementTimeoutMs: 0, maxConnections: 4 }),
          ],
        ];
        for (const [name, backend] of stores) {
          const embedder = timed(kind);
          const store = await MemoryStore.open({ backend: backend(), embedder });
          const built = await ingest(store, embedder, contents);
          console.error(`${name} ${n}: ingested in ${built.total.toFixed(1)} s`);
          const [p50, p95, c50, c95] = (await latency(queries, store)).map((x) => x.toFixed(2));
          rows.push(
            `| ${name} | ${n.toLocaleString('en')} | ${Math.round(built.rate).toLocaleString('en')} | ${built.total.toFixed(1)} (embedding ${built.embedding.toFixed(1)}) | ${p50} | ${p95} | ${c50} | ${c95} |`,
          );
          await store.close();
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
        spawnSync('psql', [pg.url, '-qc', `DROP SCHEMA IF EXISTS "${schema}" CASCADE`], { stdio: 'ignore' });
      }
    }
    console.log(
      `\ningest and recall (hybrid, k = 10, reinforce off; ${nQueries} queries after ${WARMUP} warm-up), ${kind} embedder; ` +
        `${cpus().length} x ${cpus()[0]?.model.trim()}, Node ${process.versions.node}, load average ${loadavg()[0]!.toFixed(1)}; ` +
        'server on the same machine, reached over TCP loopback\n',
    );
    console.log(
      '| backend | memories | ingest /s (without embedding) | ingest s | wall p50 ms | wall p95 ms | client CPU p50 ms | client CPU p95 ms |',
    );
    console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
    for (const row of rows) console.log(row);
    const locomo = flag(args, 'locomo');
    if (locomo) {
      const { run: locomoRun } = await import('./locomo');
      await locomoRun([
        '--backends',
        'sqlite,postgres,postgres-server',
        '--modes',
        'conversation',
        ...(locomo === 'all' ? [] : ['--conversations', locomo]),
      ]);
    }
  } finally {
    pg.stop();
  }
}
