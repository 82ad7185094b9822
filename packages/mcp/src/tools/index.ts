import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ServerContext } from '../server/server-context';
import { registerBranchTools } from './branch-tools';
import { registerDecayTool } from './decay-tool';
import { registerMemoryTools } from './memory-tools';
import { registerSkillTools } from './skill-tools';
import { registerTeleportTools } from './teleport-tools';

export { toSkillOut } from './skill-tools';

/** Every agentmem tool. */
export function registerTools(server: McpServer, ctx: ServerContext): void {
  registerMemoryTools(server, ctx);
  registerSkillTools(server, ctx);
  registerBranchTools(server, ctx);
  registerTeleportTools(server, ctx);
  registerDecayTool(server, ctx);
}
