import { exec } from 'node:child_process';
import { promisify } from 'node:util';
import { describe } from 'vitest';

/**
 * The real servers of `npm run test:postgres` (scripts/test-postgres.mjs), from the environment:
 * DATABASE_URL for everything, and a second server the restart tests may crash
 * (AGENTMEM_PG_CRASH_URL, brought down and up by the AGENTMEM_PG_DOWN / AGENTMEM_PG_UP commands).
 */
export const databaseUrl = process.env.DATABASE_URL;
export const crashUrl = process.env.AGENTMEM_PG_CRASH_URL;

const run = promisify(exec);

const HOW = 'run `npm run test:postgres` (starts a throwaway server) or set DATABASE_URL, see docs/postgres.md';

/** A describe that runs only against a real server; in `npm test` (PGlite) it is skipped with a title saying how to run it. */
export function describeServer(title: string, body: (url: () => string) => void): void {
  const url = databaseUrl;
  describe.skipIf(!url)(url ? `${title} (real server)` : `${title} (skipped: ${HOW})`, () => body(() => url!));
}

/** The same for the restart tests, which also need a server they may crash. */
export function describeCrashServer(
  title: string,
  body: (server: { url: () => string; down(): Promise<void>; up(): Promise<void>; isDown(): boolean }) => void,
): void {
  const url = crashUrl;
  const down = process.env.AGENTMEM_PG_DOWN;
  const up = process.env.AGENTMEM_PG_UP;
  const ready = Boolean(url && down && up);
  let isDown = false;
  describe.skipIf(!ready)(ready ? `${title} (real server, crashed and restarted)` : `${title} (skipped: ${HOW})`, () =>
    body({
      url: () => url!,
      // Asynchronous: the client under test goes on running while the server goes down and comes back.
      down: async () => {
        isDown = true;
        await run(down!);
      },
      up: async () => {
        await run(up!);
        isDown = false;
      },
      isDown: () => isDown,
    }),
  );
}
