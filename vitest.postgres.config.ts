import { defineConfig, mergeConfig } from 'vitest/config';
import base from './vitest.config';

/**
 * The real-server suite (`npm run test:postgres`): every test that needs a real
 * PostgreSQL with pgvector (DATABASE_URL), none of the PGlite ones. The runner
 * (scripts/test-postgres.mjs) starts a throwaway server when DATABASE_URL is unset.
 * Files run in parallel: each store is a schema of its own, and the restart
 * tests crash a second server of their own (AGENTMEM_PG_CRASH_URL).
 */
export default mergeConfig(
  { ...base, test: { ...base.test, globalSetup: [], include: [] } },
  defineConfig({
    test: {
      include: ['test/postgres/postgres.int.test.ts', 'test/postgres/server/**/*.test.ts'],
      // The work is the server's: more files at once than cores keeps it busy.
      maxWorkers: 4,
      testTimeout: 60_000,
      hookTimeout: 60_000,
    },
  }),
);
