/**
 * Postgres stores for benches: a PGlite server (Postgres 18 + pgvector in
 * WebAssembly) on loopback, reached through the real `pg` client like any
 * server, one schema per store. Not a bench itself (not listed in run.ts).
 */
import { type MemoryStoreOptions, MemoryStore } from '@agentmem/core';
import { type KeywordRanking, PostgresBackend } from '@agentmem/postgres';
import { startPglite } from '../test/postgres/pglite-server';

type StoreFactory = (
  options: Partial<MemoryStoreOptions> & Pick<MemoryStoreOptions, 'embedder'>,
) => Promise<MemoryStore>;

/** `postgres` (BM25 in SQL), `postgres-ts_rank_cd` and, with DATABASE_URL, `postgres-server` factories, and how to stop PGlite. */
export async function pgliteFactories(
  now: () => number,
): Promise<{ factories: Record<string, StoreFactory>; stop: () => Promise<void> }> {
  const server = await startPglite();
  const url = `postgres://postgres@${server.host}:${server.port}/postgres`;
  let n = 0;
  const factory =
    (keywordRanking: KeywordRanking, on = url): StoreFactory =>
    async (o) =>
      MemoryStore.open({
        backend: new PostgresBackend({
          connectionString: on,
          schema: `bench_${process.pid}_${++n}`,
          keywordRanking,
          maxConnections: 2,
        }),
        now,
        ...o,
      });
  return {
    factories: {
      postgres: factory('bm25'),
      'postgres-ts_rank_cd': factory('ts_rank_cd'),
      // A real server (DATABASE_URL): `npm run bench -- postgres-server` sets it, or starts one.
      ...(process.env.DATABASE_URL ? { 'postgres-server': factory('bm25', process.env.DATABASE_URL) } : {}),
    },
    stop: server.stop,
  };
}
