import { AgentMemory } from '@agentmem/core';
import { AgentMemoryStore } from '@agentmem/langchain/store';
import { afterAll, beforeAll, describe, inject, it } from 'vitest';
import { expectSameAsInMemoryStore } from '../../packages/langchain/src/store/store-differential';
import { postgresStores, waitForServer } from './helpers';

const url = () => inject('pgliteUrl');

describe('LangGraph store on Postgres (PGlite) against LangGraph InMemoryStore (differential)', () => {
  const stores = postgresStores(url);
  beforeAll(() => waitForServer(url()), 180_000);
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
