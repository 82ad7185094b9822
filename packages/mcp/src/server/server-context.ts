import { isAbsolute, resolve } from 'node:path';
import type { AgentMemory } from '@agentmem/core';
import type { McpServerConfig } from '../config';

/** What every tool, resource and prompt of one server shares. */
export class ServerContext {
  /** True once the agent switched branch itself: the client's roots no longer move it. */
  branchPinned: boolean;

  constructor(
    readonly memory: AgentMemory,
    readonly config: McpServerConfig,
    readonly log: (message: string) => void = (message) => process.stderr.write(`agentmem-mcp: ${message}\n`),
  ) {
    this.branchPinned = config.branch !== undefined;
  }

  /** Paths the agent gives (snapshots) are relative to the client's working directory. */
  resolvePath(path: string): string {
    return isAbsolute(path) ? path : resolve(this.config.cwd, path);
  }
}
