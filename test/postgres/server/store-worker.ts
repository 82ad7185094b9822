// A child process of the real-server tests: one role on one Postgres store, reporting on stdout, one JSON
// object a line ({ ack }, { done }, { error }). Exit 1 on any error, with its code: the parent fails on it.
//   node --import tsx store-worker.ts '<json: { role, url, schema, ... }>'
import { AgentMemoryError, HashingEmbedder } from '@agentmem/core';
import { createPostgresMemory, PostgresBackend } from '@agentmem/postgres';

interface Job {
  role: 'writer' | 'migrate';
  url: string;
  schema: string;
  /** writer: its number (in every content it writes) and how many writes. */
  worker?: number;
  writes?: number;
}

const job = JSON.parse(process.argv[2]!) as Job;
const say = (line: object) => process.stdout.write(`${JSON.stringify(line)}\n`);
const memoryOptions = {
  connectionString: job.url,
  schema: job.schema,
  embedder: new HashingEmbedder({ dimension: 32 }),
  maxConnections: 3,
};

/** One line on stdin: the parent's "go", so that processes start their work together. */
const go = () => new Promise<void>((resolve) => process.stdin.once('data', () => resolve()));

try {
  if (job.role === 'migrate') {
    const backend = new PostgresBackend({ connectionString: job.url, schema: job.schema, maxConnections: 1 });
    await backend.connectionPool.query('SELECT 1'); // connected before the race; the store is not touched yet
    say({ ready: true });
    await go();
    await backend.init({ dimension: 8 });
    await backend.upsert([
      {
        id: `from-${process.pid}`,
        namespace: 'n',
        tenant: '',
        text: 'written after migrating',
        attributes: {},
        payload: {},
      },
    ]);
    say({ done: true });
    await backend.close();
  } else {
    const memory = await createPostgresMemory(memoryOptions);
    say({ ready: true });
    await go();
    if (job.role === 'writer') {
      for (let i = 0; i < job.writes!; i++) {
        // Its own memory (once in two writes, two), plus four new memories every writer writes in its write i too,
        // in an order that differs between writers: the same new rows, inserted in opposite orders at once.
        const own = Array.from({ length: 1 + (i % 2) }, (_, j) => ({
          content: `Worker ${job.worker} note ${i}.${j}: the ${['deploy', 'staging', 'database', 'review'][i % 4]} checklist item ${i * 7 + j}`,
          type: 'project' as const,
        }));
        const shared = [0, 1, 2, 3].map((k) => ({
          content: `Shared rule ${i}.${k}: Alice Meyer reviews every Berlin deploy with Tomasz`,
          type: 'project' as const,
        }));
        if (job.worker! % 2 === 1) shared.reverse();
        const inputs = [...shared.slice(0, 2), ...own, ...shared.slice(2)];
        const written = await memory.rememberMany(inputs);
        say({ ack: written.map((m) => ({ id: m.id, content: m.content })) });
        if (i % 3 === 0) {
          // Decay may have pruned what matches: the recall must answer, not necessarily find.
          await memory.recall(`${['deploy', 'staging', 'database', 'review'][i % 4]} checklist`, { k: 5 });
        }
      }
    }
    say({ done: true });
    await memory.close();
  }
  process.exit(0);
} catch (error) {
  say({ error: AgentMemoryError.isInstance(error) ? error.code : 'UNCAUGHT', message: (error as Error).message });
  process.exit(1);
}
