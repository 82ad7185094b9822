import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

/**
 * A real Postgres engine in-process: PGlite (Postgres compiled to WebAssembly)
 * with pgvector, served over the Postgres wire protocol on loopback by
 * pglite-socket, so tests use the real `pg` client, pool, types and errors.
 */
export async function startPglite(): Promise<{ host: string; port: number; stop: () => Promise<void> }> {
  const db = await PGlite.create({ extensions: { vector } });
  await db.exec('CREATE EXTENSION IF NOT EXISTS vector');
  // PGlite is one session; the server multiplexes connections and keeps a transaction's queries together.
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 200 });
  await server.start();
  const [host, port] = server.getServerConn().split(':');
  return {
    host: host!,
    port: Number(port),
    stop: async () => {
      await server.stop();
      await db.close();
    },
  };
}
