import { resolve } from 'node:path';
import { importOptional, isPostgresUrl } from '@agentmem/core';
import type { Command } from 'commander';
import { type CliContext, qdrantLocation, refuseSpecialFile } from '../context';
import { isDefaultEmbedder } from '../embedder';
import { CliError } from '../errors';
import { parsePort } from '../parse';

type McpModule = typeof import('@agentmem/mcp');
// A variable, so that bundlers leave the optional server package out of the CLI.
const MCP_PACKAGE = '@agentmem/mcp';

interface McpCommandOptions {
  qdrantUrl?: string;
  qdrantCollection?: string;
  cwd?: string;
  session?: string;
  skills?: string[];
  http?: boolean;
  port?: number;
  host?: string;
}

export function register(program: Command, ctx: CliContext): void {
  program
    .command('mcp')
    .description('serve this store to MCP clients (Claude Code, Cursor) over stdio, or --http on loopback')
    .option('--qdrant-url <url>', 'use a Qdrant server instead of the --db file')
    .option('--qdrant-collection <name>', 'Qdrant collection (default agentmem)')
    .option('--cwd <dir>', "the client's working directory: git branch and relative paths (default: here)")
    .option('--session <id>', 'session whose summary is the session://current resource')
    .option('--skills <dir>', 'load skills from this directory at start (repeatable)', collect)
    .option('--http', 'serve Streamable HTTP on 127.0.0.1 instead of stdio')
    .option('--port <n>', 'HTTP port (default 3917, 0: any free port); implies --http', parsePort)
    .option('--host <host>', 'HTTP host, loopback only (default 127.0.0.1)')
    .action(async (options: McpCommandOptions) => {
      const global = ctx.options;
      if (!(await isDefaultEmbedder(global.embedder))) {
        // The server opens the store with the default embedder; a store built with another is refused there anyway.
        throw new CliError(
          'USAGE',
          '`agentmem mcp` serves stores of the default embedder only; unset --embedder/AGENTMEM_EMBEDDER, or serve the store from code with your embedder (docs/mcp.md).',
        );
      }
      // `--db http(s)://host/collections/<name>` names a Qdrant collection, as for the other commands.
      const qdrant = ctx.dbWasGiven ? qdrantLocation(global.db) : undefined;
      if (!qdrant && !isPostgresUrl(global.db)) {
        refuseSpecialFile(
          ctx.dbPath,
          '--db',
          'Give --db an agentmem database file, or a path that does not exist yet.',
        );
      }
      for (const dir of options.skills ?? []) {
        refuseSpecialFile(resolve(dir), '--skills', 'Give a skills directory or one skill file.');
      }
      const mcp = await loadMcp();
      // stdout carries the protocol: nothing else may be printed there.
      await mcp.serve(
        mcp.resolveConfig({
          ...(ctx.dbWasGiven && !qdrant ? { db: ctx.dbPath } : {}),
          tenant: global.tenant,
          branch: global.branch,
          agent: global.agent,
          qdrantUrl: options.qdrantUrl ?? qdrant?.url,
          qdrantCollection: options.qdrantCollection ?? qdrant?.collection,
          cwd: options.cwd,
          session: options.session,
          skills: options.skills,
          http: options.http,
          port: options.port,
          host: options.host,
        }),
      );
    });
}

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

// Loaded on use (it is a dependency of the CLI), so other commands do not pay for the MCP SDK.
function loadMcp(): Promise<McpModule> {
  return importOptional(
    () => import(MCP_PACKAGE) as Promise<McpModule>,
    '`agentmem mcp` needs the MCP server package @agentmem/mcp, a dependency of @agentmem/cli: reinstall @agentmem/cli (npm i @agentmem/cli).',
  );
}
