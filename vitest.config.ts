import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = (pkg: string, file = 'index.ts') => fileURLToPath(new URL(`./packages/${pkg}/src/${file}`, import.meta.url));

// Tests run against the TypeScript sources, so no build is needed before `npm test`.
export default defineConfig({
  resolve: {
    alias: [
      { find: /^@agentmem\/core\/testing$/, replacement: src('core', 'testing/index.ts') },
      { find: /^@agentmem\/langchain\/middleware$/, replacement: src('langchain', 'middleware/index.ts') },
      { find: /^@agentmem\/langchain\/store$/, replacement: src('langchain', 'store/index.ts') },
      ...['core', 'sqlite', 'qdrant', 'ai-sdk', 'langchain', 'cohere', 'cli', 'mcp', 'postgres', 'inspector'].map((pkg) => ({
        find: new RegExp(`^@agentmem/${pkg}$`),
        replacement: src(pkg),
      })),
    ],
  },
  test: {
    include: ['packages/*/src/**/*.test.ts', 'test/**/*.test.ts', 'examples/**/*.test.ts'],
    // A PGlite server for the Postgres tests, started lazily on their first connection.
    globalSetup: ['test/postgres/global-setup.ts'],
    // One test file per core (vitest's default leaves one core to itself: on CI's two, one file at a time).
    // Many files wait on child processes and servers, so the second worker roughly halves the wall time.
    maxWorkers: availableParallelism(),
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // The browser tests poll what a page shows after a server round trip: on a loaded 2-core CI
    // machine that can take longer than the 1 s default, and a slow page is not a wrong page.
    expect: { poll: { timeout: 15_000 } },
  },
});
