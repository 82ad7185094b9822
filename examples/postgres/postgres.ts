/**
 * agentmem on PostgreSQL: two tenants in one table, hybrid recall, a memory
 * superseded by a newer fact, and a hand-off of the store to a SQLite file and
 * back (snapshot + merge), all on the database in DATABASE_URL.
 *
 *   DATABASE_URL=postgres://postgres:pw@localhost:5432/postgres npx tsx examples/postgres/postgres.ts
 *
 * Needs the pgvector extension (created when missing and allowed). Writes to
 * the schema `agentmem_example` (override with AGENTMEM_SCHEMA).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createPostgresMemory } from '@agentmem/postgres';
import { createSqliteMemory, sqliteSnapshotFormat } from '@agentmem/sqlite';

export async function runExample(options: { connectionString: string; schema?: string; log?: (line: string) => void }) {
  const log = options.log ?? console.log;
  const common = {
    connectionString: options.connectionString,
    schema: options.schema ?? 'agentmem_example',
    snapshotFormat: sqliteSnapshotFormat,
    branch: 'main',
  };
  const alice = await createPostgresMemory({ ...common, tenant: 'alice', agentId: 'assistant' });
  const bob = await createPostgresMemory({ ...common, tenant: 'bob', agentId: 'assistant' });
  const dir = mkdtempSync(join(tmpdir(), 'agentmem-pg-example-'));
  try {
    await alice.rememberMany([
      { content: 'Alice deploys the billing service with Helm on Fridays', type: 'project' },
      { content: 'Alice prefers answers with code samples', type: 'user' },
    ]);
    await bob.remember({ content: 'Bob deploys with Terraform', type: 'project' });

    const recalled = await alice.recall('how does alice deploy billing?', { k: 3 });
    log(`alice recalls: ${recalled.map((r) => r.memory.content).join(' | ')}`);

    const { conflicts } = await alice.rememberWithConflictCheck({
      content: 'Alice deploys the billing service with Helm on Mondays',
      type: 'project',
    });
    log(`superseded: ${conflicts.length} older memory`);

    // Hand the store to another agent as one SQLite file, and merge its work back.
    const file = join(dir, 'handoff.db');
    await alice.snapshot(file);
    const offline = await createSqliteMemory({ path: file, tenant: 'alice', branch: 'main', agentId: 'reviewer' });
    await offline.remember({ content: 'The billing deploy needs the DB migration job first', type: 'project' });
    await offline.close();
    const merged = await alice.merge(file);
    log(merged.summary());

    const after = await alice.recall('billing deploy', { k: 5 });
    const bobSees = await bob.recall('billing deploy', { k: 5 });
    log(`alice now recalls ${after.length}; bob recalls ${bobSees.length} (his own only)`);
    return {
      recalled: recalled.map((r) => r.memory.content),
      superseded: conflicts.length,
      imported: merged.counts.imported,
      alice: after.map((r) => r.memory.content),
      bob: bobSees.map((r) => r.memory.content),
    };
  } finally {
    await alice.close();
    await bob.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const connectionString = process.env.DATABASE_URL;
  if (!connectionString) {
    console.error('Set DATABASE_URL=postgres://user:password@host:5432/db (a database with pgvector).');
    process.exit(1);
  }
  runExample({ connectionString, schema: process.env.AGENTMEM_SCHEMA }).catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
