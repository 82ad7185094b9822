import { dirname, resolve } from 'node:path';
import { type AgentMemory, detectGitBranch } from '@agentmem/core';
import type { McpServerConfig } from '../config';
import { confinePath } from './confine-path';

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
    this.allowRoot(config.cwd);
    if (config.db) this.allowRoot(dirname(resolve(config.cwd, config.db)));
  }

  /**
   * Paths the agent gives (snapshots) are relative to the client's working
   * directory and confined: they must stay under `--cwd`, the store's data
   * directory or a root the client declared, also after following symbolic
   * links; a file to write needs an existing directory (none is created).
   */
  resolvePath(path: string, options: { write?: boolean } = {}): string {
    return confinePath(path, this.config.cwd, [...this.roots], options.write === true);
  }

  /** Directories paths may point into: `--cwd`, the data directory, the client's roots. */
  private roots = new Set<string>();

  /** Lets paths point into a root the client declared. */
  allowRoot(dir: string): void {
    this.roots.add(resolve(dir));
  }

  /** Follows another work tree (the client's root) from now on. */
  async followWorkTree(dir: string): Promise<void> {
    this.allowRoot(dir);
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
