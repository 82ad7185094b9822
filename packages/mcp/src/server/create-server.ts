import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { RootsListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import pkg from '../../package.json';
import { registerPrompts } from '../prompts';
import { registerResources } from '../resources';
import { registerTools } from '../tools';
import type { ServerContext } from './server-context';

export const SERVER_NAME = 'agentmem';
export const SERVER_VERSION: string = pkg.version;
/** How long a path waits for the client's roots list before it is judged without them. */
const ROOTS_TIMEOUT_MS = 10_000;

const INSTRUCTIONS = `agentmem is this user's long-term memory and skill library.
- Before a task, call activate_skills with the user's message and the file you work on, and follow the rendered skills; call recall for facts you may already know.
- When you learn a durable fact (a preference, a correction, a decision about this codebase), call remember with the right type.
- Tools that delete or overwrite (forget, decay, branch_merge, merge_snapshot, undo_merge) only preview unless called with dryRun: false.`;

/**
 * One MCP server (one session) over one opened store. Tools, resources and
 * prompts share the context; the store stays open until the caller closes it.
 * Paths may point into the client's file:// roots, read before the first
 * request and again after the client says they changed; without a fixed
 * branch, the branch follows git in the first one.
 */
export function createMcpServer(shared: ServerContext): McpServer {
  const server = new McpServer(
    { name: SERVER_NAME, title: 'agentmem memory and skills', version: SERVER_VERSION },
    { instructions: INSTRUCTIONS },
  );
  // The client's roots are this session's (an HTTP server has one per client).
  const ctx = shared.forSession();
  registerTools(server, ctx);
  registerResources(server, ctx);
  registerPrompts(server, ctx);
  const rootsChanged = () => {
    if (!server.server.getClientCapabilities()?.roots) return;
    ctx.rootsChanged((relatedRequestId) =>
      server.server.listRoots(undefined, { timeout: ROOTS_TIMEOUT_MS, relatedRequestId }),
    );
  };
  server.server.oninitialized = rootsChanged;
  server.server.setNotificationHandler(RootsListChangedNotificationSchema, rootsChanged);
  return server;
}
