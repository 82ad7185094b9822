/**
 * Keyword search alone on Postgres (PGlite over the wire protocol, the
 * default BM25 ranking) at growing sizes: how the keyword statement scales
 * with the records a query's words match. Records have no vectors, so loading
 * 100k takes seconds (HNSW inserts in WebAssembly are what makes the `recall`
 * bench's copy slow). Same generated memories and queries as `recall`.
 *
 *   npm run bench -- postgres-keyword [--sizes 10000,100000] [--queries 50]
 *
 * PGlite runs in this process on one thread: CPU is server plus client.
 */
import { PostgresBackend } from '@agentmem/postgres';
import { startPglite } from '../test/postgres/pglite-server';
import { textGenerator } from './recall';

const WARMUP = 10;
const BATCH = 5000;

function flag(args: string[], name: string): string | undefined {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
}

export async function run(args: string[]): Promise<void> {
  const sizes = (flag(args, 'sizes') ?? '10000,100000').split(',').map(Number);
  const nQueries = Number(flag(args, 'queries') ?? 50);
  // recall's filter on a store of user memories: tenant, recall's namespaces, active memories.
  const filter = {
    tenant: '',
    namespaces: ['user', 'feedback', 'project:main', 'reference:main'],
    where: { kind: 'memory', status: 'active' },
  };
  const rows: string[] = [];
  for (const n of sizes) {
    const server = await startPglite();
    const backend = new PostgresBackend({
      connectionString: `postgres://postgres@${server.host}:${server.port}/postgres`,
      statementTimeoutMs: 0, // measure, do not cut
    });
    try {
      await backend.init({ dimension: 4 });
      const text = textGenerator(42);
      const start = performance.now();
      for (let i = 0; i < n; i += BATCH) {
        await backend.upsert(
          Array.from({ length: Math.min(BATCH, n - i) }, (_, j) => ({
            id: `m${i + j}`,
            namespace: 'user',
            tenant: '',
            text: text(8, 20),
            attributes: { kind: 'memory', status: 'active', type: 'user' },
            payload: {},
          })),
        );
      }
      const load = ((performance.now() - start) / 1000).toFixed(0);
      const queries = Array.from({ length: nQueries + WARMUP }, textGenerator(7).bind(null, 3, 6));
      const wall: number[] = [];
      const cpu: number[] = [];
      for (const [i, q] of queries.entries()) {
        const t = performance.now();
        const c = process.cpuUsage();
        await backend.search({ mode: 'keyword', text: q, filter, k: 50 });
        const used = process.cpuUsage(c);
        if (i < WARMUP) continue;
        wall.push(performance.now() - t);
        cpu.push((used.user + used.system) / 1000);
      }
      const at = (ms: number[], p: number) =>
        [...ms].sort((a, b) => a - b)[Math.min(ms.length - 1, Math.floor(p * ms.length))]!.toFixed(0);
      rows.push(
        `| ${n.toLocaleString('en')} | ${load} s | ${at(wall, 0.5)} | ${at(wall, 0.95)} | ${at(wall, 1)} | ${at(cpu, 0.5)} | ${at(cpu, 0.95)} |`,
      );
    } finally {
      await backend.close();
      await server.stop();
    }
  }
  const { loadavg } = await import('node:os');
  console.log(
    `\nPostgres (PGlite) keyword search, BM25, k = 50, recall's filter; ${nQueries} queries after ${WARMUP} warm-up; load average ${loadavg()[0]!.toFixed(1)}\n`,
  );
  console.log('| records | load | wall p50 ms | wall p95 ms | wall max ms | CPU p50 ms | CPU p95 ms |');
  console.log('| --- | --- | --- | --- | --- | --- | --- |');
  for (const row of rows) console.log(row);
}
