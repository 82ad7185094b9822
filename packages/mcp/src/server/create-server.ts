import { fileURLToPath } from 'node:url';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { RootsListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import pkg from '../../package.json';
import { registerPrompts } from '../prompts';
import { registerResources } from '../resources';
import { registerTools } from '../tools';
import type { ServerContext } from './server-context';

export const SERVER_NAME = 'agentmem';
export const SERVER_VERSION: string = pkg.version;

const INSTRUCTIONS = `agentmem is this user's long-term memory and skill library.
- Before a task, call activate_skills with the user's message and the file you work on, and follow the rendered skills; call recall for facts you may already know.
- When you learn a durable fact (a preference, a correction, a decision about this codebase), call remember with the right type.
- Tools that delete or overwrite (forget, decay, branch_merge, merge_snapshot, undo_merge) only preview unless called with dryRun: false.`;

/**
 * One MCP server over one opened store. Tools, resources and prompts share the
 * context; the store stays open until the caller closes it.
 */
export function createMcpServer(ctx: ServerContext): McpServer {
  const server = new McpServer(
    { name: SERVER_NAME, title: 'agentmem memory and skills', version: SERVER_VERSION },
    { instructions: INSTRUCTIONS },
  );
  registerTools(server, ctx);
  registerResources(server, ctx);
  registerPrompts(server, ctx);
  server.server.oninitialized = () => {
    void followClientRoot(server, ctx);
  };
  server.server.setNotificationHandler(RootsListChangedNotificationSchema, () => followClientRoot(server, ctx));
  return server;
}

/**
 * Without a fixed branch, the branch follows git in the client's working
 * directory: `--cwd` at first, then the first file:// root the client
 * declares, when it declares roots (asked again when they change).
 */
async function followClientRoot(server: McpServer, ctx: ServerContext): Promise<void> {
  if (ctx.branchPinned || !server.server.getClientCapabilities()?.roots) return;
  try {
    const { roots } = await server.server.listRoots();
    const root = roots.find((r) => r.uri.startsWith('file://'));
    if (root) await ctx.followWorkTree(fileURLToPath(root.uri));
  } catch (error) {
    ctx.log(`could not read the client's roots, staying on branch ${ctx.memory.branch}: ${(error as Error).message}`);
  }
}
