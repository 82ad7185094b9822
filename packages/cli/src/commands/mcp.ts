import { importOptional } from '@agentmem/core';
import type { Command } from 'commander';
import type { CliContext } from '../context';
import { parsePositiveInt } from '../parse';

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
    .option('--port <n>', 'HTTP port (default 3917); implies --http', parsePositiveInt)
    .option('--host <host>', 'HTTP host, loopback only (default 127.0.0.1)')
    .action(async (options: McpCommandOptions) => {
      const mcp = await loadMcp();
      const global = ctx.options;
      // stdout carries the protocol: nothing else may be printed there.
      await mcp.serve(
        mcp.resolveConfig({
          ...(ctx.dbWasGiven ? { db: ctx.dbPath } : {}),
          tenant: global.tenant,
          branch: global.branch,
          agent: global.agent,
          qdrantUrl: options.qdrantUrl,
          qdrantCollection: options.qdrantCollection,
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
