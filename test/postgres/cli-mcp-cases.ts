import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli } from '../cli/run-cli';
import { call, startServer } from '../mcp/helpers';
import { postgresStores, waitForServer } from './helpers';

/** The CLI and the MCP server on a postgres:// store: on PGlite in `npm test`, on a real server in `npm run test:postgres`. */
export function cliMcpCases(url: () => string): void {
  const stores = postgresStores(url);
  beforeAll(() => waitForServer(url()), 180_000);
  afterAll(() => stores.dropAll());
  const db = () => `${url()}?schema=${stores.schema()}`;

  it('agentmem --db postgres://… remembers and recalls; AGENTMEM_DB names the same store', async () => {
    const location = db();
    const remembered = await runCli([
      '--db',
      location,
      '--branch',
      'main',
      '--json',
      'remember',
      'Deploys run on Fridays',
      '--type',
      'project',
    ]);
    expect(remembered.code, remembered.stderr).toBe(0);
    const id = remembered.json().memory.id;
    process.env.AGENTMEM_DB = location;
    try {
      const recalled = await runCli(['--branch', 'main', '--json', 'recall', 'when do deploys run']);
      expect(recalled.code, recalled.stderr).toBe(0);
      expect(recalled.json().results[0].memory.id).toBe(id);
      const stats = await runCli(['--json', 'stats']);
      expect(stats.json().total).toBe(1);
    } finally {
      delete process.env.AGENTMEM_DB;
    }
  });

  it('migrates a SQLite store into Postgres with the CLI: snapshot, then merge --all-tenants, then undo', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentmem-pg-cli-'));
    try {
      const file = join(dir, 'memory.db');
      const local = ['--db', file, '--branch', 'main'];
      expect((await runCli([...local, 'remember', 'Deploys run on Fridays', '--type', 'project'])).code).toBe(0);
      expect((await runCli([...local, '--tenant', 'bob', 'remember', 'Bob prefers tabs', '--type', 'user'])).code).toBe(
        0,
      );
      expect((await runCli([...local, 'snapshot', join(dir, 'export.db')])).code).toBe(0);
      const pg = ['--db', db(), '--branch', 'main', '--yes', '--json'];
      const merged = await runCli([...pg, 'merge', join(dir, 'export.db'), '--all-tenants']);
      expect(merged.code, merged.stderr).toBe(0);
      expect(merged.json().counts.imported).toBe(2);
      const bob = await runCli([...pg, '--tenant', 'bob', 'recall', 'tabs']);
      expect(bob.json().results.map((r: { memory: { content: string } }) => r.memory.content)).toEqual([
        'Bob prefers tabs',
      ]);
      const undo = await runCli([...pg, 'undo-merge', merged.json().mergeId]);
      expect(undo.code, undo.stderr).toBe(0);
      expect((await runCli([...pg, '--tenant', 'bob', 'recall', 'tabs'])).json().results).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a postgres:// store that cannot be reached fails with a clear error and exit code', async () => {
    const run = await runCli(['--db', 'postgres://postgres@127.0.0.1:1/postgres', 'recall', 'anything']);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/Cannot reach PostgreSQL at 127\.0\.0\.1:1\/postgres/);
  }, 60_000);

  it('agentmem-mcp serves a postgres:// store given by AGENTMEM_DB', async () => {
    const server = await startServer(['--branch', 'main'], { env: { AGENTMEM_DB: db() } });
    try {
      const written = await call(server.client, 'remember', {
        content: 'The staging database is PostgreSQL 16',
        type: 'project',
      });
      const found = await call(server.client, 'recall', { query: 'staging database' });
      expect(found.results[0].memory.id).toBe(written.memory.id);
      expect(server.stderr()).not.toMatch(/password/);
      expect(server.errors).toEqual([]);
    } finally {
      await server.close();
    }
  }, 120_000);
}
