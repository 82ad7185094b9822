// A child of the fault suite: runs decay or compact through the public API on a SQLite file or a Qdrant
// collection, and kills itself with SIGKILL right after its Nth write call to the backend returned
// (KILL_AFTER_WRITES=N), or once the operation returned, before the store is closed (KILL_AFTER_WRITES=end).
//   kill-point-child.ts decay|compact sqlite <file>
//   kill-point-child.ts decay|compact qdrant <url> <collection>
import type { MemoryBackend } from '@agentmem/core';
import { runOperation } from './kill-point-store';

const [operation, kind, location, collection] = process.argv.slice(2);
const killAt = process.env.KILL_AFTER_WRITES;
const die = () => process.kill(process.pid, 'SIGKILL');

async function open(): Promise<MemoryBackend> {
  if (kind === 'sqlite') return new (await import('@agentmem/sqlite')).SqliteBackend({ path: location! });
  const { QdrantBackend } = await import('@agentmem/qdrant');
  return new QdrantBackend({ url: location!, collection: collection!, checkCompatibility: false });
}

const writes = await runOperation(await open(), operation!, {
  afterWrite: (n) => {
    if (String(n) === killAt) die();
  },
  beforeClose: () => {
    if (killAt === 'end') die();
  },
});
process.stdout.write(`writes ${writes}\n`);
