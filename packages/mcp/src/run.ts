import type { Readable, Writable } from 'node:stream';
import { type AgentMemory, redactPassword } from '@agentmem/core';
import { type McpServerConfig, openMemory } from './config';
import { ServerContext } from './server/server-context';
import { type HttpServerHandle, serveHttp, serveStdio } from './transport';

export interface ServeOptions {
  /** Where logs go; default stderr (stdout belongs to the protocol). */
  log?: (message: string) => void;
  /** Stdio streams; default the process's. */
  stdin?: Readable;
  stdout?: Writable;
  /** HTTP mode: called once listening, with the endpoint URL. */
  onListening?: (handle: HttpServerHandle) => void;
  /** The server stops when this aborts (default: on SIGINT/SIGTERM). */
  signal?: AbortSignal;
}

/**
 * Opens the store, loads the configured skill directories and serves MCP
 * (stdio, or Streamable HTTP on loopback) until the client goes away or the
 * process is told to stop; then closes the store.
 */
export async function serve(config: McpServerConfig, options: ServeOptions = {}): Promise<void> {
  const log = options.log ?? ((message: string) => process.stderr.write(`agentmem-mcp: ${message}\n`));
  const memory = await openMemory(config);
  try {
    const ctx = new ServerContext(memory, config, log);
    await loadSkillDirs(memory, config.skills, log);
    log(
      `store ${config.qdrant ? `${config.qdrant.url} (${config.qdrant.collection})` : redactPassword(config.db)}, tenant ${memory.tenant || '(default)'}, branch ${memory.branch}`,
    );
    const stop = stopSignal(options.signal);
    try {
      if (!config.http) {
        await serveStdio(ctx, { stdin: options.stdin, stdout: options.stdout, signal: stop.signal });
        return;
      }
      const handle = await serveHttp(ctx, config.http);
      log(`Streamable HTTP at ${handle.url}`);
      options.onListening?.(handle);
      await new Promise<void>((resolve) => {
        if (stop.signal.aborted) resolve();
        else stop.signal.addEventListener('abort', () => resolve(), { once: true });
      });
      await handle.close();
    } finally {
      stop.dispose();
    }
  } finally {
    await memory.close();
  }
}

async function loadSkillDirs(memory: AgentMemory, dirs: readonly string[], log: (message: string) => void) {
  for (const dir of dirs) {
    const result = await memory.skills.load(dir);
    for (const p of result.problems) log(`skill ${p.path}${p.line ? `:${p.line}` : ''}: ${p.severity}: ${p.reason}`);
    log(
      `skills from ${dir}: ${result.added.length} added, ${result.updated.length} updated, ${result.unchanged.length} unchanged`,
    );
  }
}

/** The caller's signal, or SIGINT/SIGTERM: the store is closed cleanly either way. */
function stopSignal(signal: AbortSignal | undefined): { signal: AbortSignal; dispose: () => void } {
  if (signal) return { signal, dispose: () => {} };
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return {
    signal: controller.signal,
    dispose: () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    },
  };
}
