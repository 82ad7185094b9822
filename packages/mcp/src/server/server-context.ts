import { isAbsolute, resolve } from 'node:path';
import { type AgentMemory, detectGitBranch } from '@agentmem/core';
import type { McpServerConfig } from '../config';

/** What every tool, resource and prompt of one server shares. */
export class ServerContext {
  /** True once the agent switched branch itself (or `--branch` was given): git no longer moves it. */
  branchPinned: boolean;
  /** The work tree whose git branch scoped memories follow: `--cwd`, then the client's first root. */
  private workTree: string;
  private syncing: Promise<void> | undefined;

  constructor(
    readonly memory: AgentMemory,
    readonly config: McpServerConfig,
    readonly log: (message: string) => void = (message) => process.stderr.write(`agentmem-mcp: ${message}\n`),
  ) {
    this.branchPinned = config.branch !== undefined;
    this.workTree = config.cwd;
  }

  /** Paths the agent gives (snapshots) are relative to the client's working directory. */
  resolvePath(path: string): string {
    return isAbsolute(path) ? path : resolve(this.config.cwd, path);
  }

  /** Follows another work tree (the client's root) from now on. */
  async followWorkTree(dir: string): Promise<void> {
    this.workTree = dir;
    await this.syncBranch();
  }

  /**
   * Before each request: the branch of the work tree now, so that a checkout
   * during a long session moves project memories with it. Detached HEAD or a
   * failing git keeps the current branch.
   */
  syncBranch(): Promise<void> {
    if (this.branchPinned) return Promise.resolve();
    this.syncing ??= (async () => {
      try {
        const branch = await detectGitBranch({ cwd: this.workTree, fallback: this.memory.branch });
        if (!this.branchPinned && branch !== this.memory.branch) {
          this.memory.switchBranch(branch);
          this.log(`branch ${branch} (git in ${this.workTree})`);
        }
      } finally {
        this.syncing = undefined;
      }
    })();
    return this.syncing;
  }
}
