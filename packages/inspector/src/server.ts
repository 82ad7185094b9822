import type { AddressInfo } from 'node:net';
import type { AgentMemory } from '@agentmem/core';
import { createAdaptorServer } from '@hono/node-server';
import { createInspectorApp } from './app';
import { newSecrets } from './security';
import { type InspectorStoreSettings, Stores } from './stores';

export interface InspectorOptions {
  /** The opened store. The inspector never closes it. */
  memory: AgentMemory;
  /** Default false: every write is refused and the page says so. */
  allowWrites?: boolean;
  /** Loopback port; default 0 (any free port). */
  port?: number;
  /** What the page calls the store (a file path, a URL). */
  label?: string;
  /**
   * The store's settings the inspector cannot read back (half-lives, prune
   * threshold, reranker, snapshot format...): pass the ones the store was
   * opened with, so decay curves and recall explanations match it.
   */
  settings?: InspectorStoreSettings;
}

export interface InspectorHandle {
  /** Open this: it carries the access token (http://127.0.0.1:PORT/?token=...). */
  url: string;
  /** The same without the token (for logs that others may see). */
  origin: string;
  port: number;
  close(): Promise<void>;
}

/** Starts the inspector on 127.0.0.1 (loopback only) and resolves once it listens. */
export async function startInspector(options: InspectorOptions): Promise<InspectorHandle> {
  const stores = new Stores(options.memory, options.settings ?? {}, options.allowWrites === true);
  const secrets = newSecrets();
  let port = 0;
  const app = createInspectorApp({
    stores,
    secrets,
    port: () => port,
    label: options.label ?? `${options.memory.backend.provider} store`,
  });
  const server = createAdaptorServer({ fetch: app.fetch });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  port = (server.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;
  return {
    url: `${origin}/?token=${secrets.token}`,
    origin,
    port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        if ('closeAllConnections' in server) server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
