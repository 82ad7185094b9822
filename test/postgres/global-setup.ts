import type { TestProject } from 'vitest/node';
import { TcpRelay } from './tcp-relay';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Connection string of the PGlite server shared by the Postgres tests (started on first connection). */
    pgliteUrl: string;
  }
}

/**
 * One PGlite server for every Postgres test file, started only when a test
 * first connects (it costs seconds of CPU), stopped after the run.
 */
export default async function setup(project: TestProject) {
  let engine: Promise<{ host: string; port: number; stop: () => Promise<void> }> | undefined;
  const relay = await TcpRelay.start(() => {
    engine ??= import('./pglite-server').then((m) => m.startPglite());
    return engine;
  });
  project.provide('pgliteUrl', relay.url);
  return async () => {
    await relay.kill();
    if (engine) await (await engine).stop();
  };
}
