import { type AgentMemory, importOptional } from '@agentmem/core';
import { sqliteSnapshotFormat } from '@agentmem/sqlite';
import { type Command, Option } from 'commander';
import type { CliContext } from '../context';
import { parsePort } from '../parse';

/** What the CLI uses of `@agentmem/inspector` (declared here: the package is optional and may build after the CLI). */
interface InspectorModule {
  startInspector(options: {
    memory: AgentMemory;
    label: string;
    allowWrites: boolean;
    port?: number;
    settings: { snapshotFormat: typeof sqliteSnapshotFormat };
  }): Promise<{ url: string; close(): Promise<void> }>;
}
type QdrantModule = typeof import('@agentmem/qdrant');
// Variables, so that bundlers leave the optional packages out of the CLI.
const INSPECTOR_PACKAGE = '@agentmem/inspector';
const QDRANT_PACKAGE = '@agentmem/qdrant';

interface InspectOptions {
  qdrantUrl?: string;
  /** The old spelling of --qdrant-url, kept working (hidden from help) so scripts that use it do not break. */
  qdrant?: string;
  qdrantCollection?: string;
  port?: number;
  allowWrites?: boolean;
}

/** How the command waits for Ctrl-C once the inspector listens; tests replace it. */
export const lifecycle = {
  waitForStop: (_inspector: { url: string }): Promise<void> =>
    new Promise((resolve) => {
      const stop = () => {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        resolve();
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    }),
};

export function register(program: Command, ctx: CliContext): void {
  program
    .command('inspect')
    .description('open a local web inspector on this store (read-only unless --allow-writes); prints its URL')
    // --qdrant-url as in `agentmem mcp`: one spelling across commands.
    .option('--qdrant-url <url>', 'inspect a Qdrant server instead of the --db file')
    .addOption(new Option('--qdrant <url>').hideHelp().conflicts('qdrantUrl'))
    .option('--qdrant-collection <name>', 'Qdrant collection (default agentmem)')
    .option('--port <n>', 'port on 127.0.0.1 (default 0: any free port)', parsePort)
    .option('--allow-writes', 'allow applying merges and decay, and undoing merges, from the browser')
    .action(async (options: InspectOptions) => {
      const inspector = await loadInspector();
      const { memory, label, owned } = await open(ctx, options);
      const handle = await inspector.startInspector({
        memory,
        label,
        allowWrites: options.allowWrites === true,
        port: options.port,
        settings: { snapshotFormat: sqliteSnapshotFormat },
      });
      ctx.emit({ url: handle.url, allowWrites: options.allowWrites === true, store: label }, () => {
        ctx.print(`agentmem inspector on ${label}${options.allowWrites ? ' (writes allowed)' : ' (read-only)'}`);
        ctx.print(`Open ${handle.url}`);
        ctx.note('The URL carries an access token: do not share it. Ctrl-C stops the inspector.');
      });
      try {
        await lifecycle.waitForStop(handle);
      } finally {
        await handle.close();
        // The context closes the SQLite store it opened; a Qdrant store is ours to close.
        if (owned) await memory.close();
      }
    });
}

async function open(
  ctx: CliContext,
  options: InspectOptions,
): Promise<{ memory: AgentMemory; label: string; owned: boolean }> {
  const url = options.qdrantUrl ?? options.qdrant;
  if (!url) return { memory: await ctx.openMemory({ mustExist: true }), label: ctx.dbPath, owned: false };
  const { createQdrantMemory } = await importOptional(
    () => import(QDRANT_PACKAGE) as Promise<QdrantModule>,
    '--qdrant-url needs the Qdrant backend: run `npm i @agentmem/qdrant`, or drop --qdrant-url to inspect the SQLite file of --db.',
  );
  const collection = options.qdrantCollection ?? 'agentmem';
  const global = ctx.options;
  const memory = await createQdrantMemory({
    url,
    collection,
    ...(global.tenant !== undefined ? { tenant: global.tenant } : {}),
    ...(global.branch !== undefined ? { branch: global.branch } : {}),
    snapshotFormat: sqliteSnapshotFormat,
  });
  return { memory, label: `${url} (collection ${collection})`, owned: true };
}

// Optional: only people who inspect need the web app and its server.
function loadInspector(): Promise<InspectorModule> {
  return importOptional(
    () => import(INSPECTOR_PACKAGE) as Promise<InspectorModule>,
    '`agentmem inspect` needs the inspector package: run `npm i @agentmem/inspector`.',
  );
}
