import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runCli } from '../cli/run-cli';
import { call, startServer } from '../mcp/helpers';
import { postgresStores, waitForServer } from './helpers';

const url = () => inject('pgliteUrl');

describe('CLI and MCP server on a postgres:// store (PGlite)', () => {
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
});
