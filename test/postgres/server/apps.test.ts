import { AgentMemory } from '@agentmem/core';
import { FakeEmbedder } from '@agentmem/core/testing';
import { AgentMemoryStore } from '@agentmem/langchain/store';
import { createPostgresMemory } from '@agentmem/postgres';
import { sqliteSnapshotFormat } from '@agentmem/sqlite';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { expectSameAsInMemoryStore } from '../../../packages/langchain/src/store/store-differential';
import { teleportCases } from '../../teleport/backend-teleport';
import { cliMcpCases } from '../cli-mcp-cases';
import { postgresStores, waitForServer } from '../helpers';
import { describeServer } from './server-env';

/** What users run on the backend (CLI, MCP server, teleport, the LangGraph store), on a real server. */
describeServer('The CLI, MCP server, teleport and LangGraph store on Postgres', (url) => {
  describe('CLI and MCP server on a postgres:// store', () => cliMcpCases(url));

  describe('Teleport: snapshot to the portable file, merge back, undo', () => {
    const stores = postgresStores(url);
    beforeAll(() => waitForServer(url()));
    afterAll(() => stores.dropAll());
    teleportCases('postgres', (options) =>
      createPostgresMemory({
        connectionString: url(),
        schema: stores.schema(),
        embedder: new FakeEmbedder(),
        snapshotFormat: sqliteSnapshotFormat,
        ...options,
      }),
    );
  });

  describe('LangGraph store against LangGraph InMemoryStore (differential)', () => {
    const stores = postgresStores(url);
    afterAll(() => stores.dropAll());
    for (const seed of [1, 2]) {
      it(`gives the same results for a random sequence of operations (seed ${seed})`, async () => {
        const backend = stores.backend();
        try {
          await expectSameAsInMemoryStore(new AgentMemoryStore({ memory: new AgentMemory({ backend }) }), seed, 120);
        } finally {
          await backend.close();
        }
      }, 120_000);
    }
  });
});
