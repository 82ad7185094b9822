import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type AgentMemory, detectGitBranch } from '@agentmem/core';
import type { RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { McpServerConfig } from '../config';
import { confinePath } from './confine-path';

/** What the sessions of one server share: the branch git moves, until the agent picks one itself. */
interface BranchState {
  /** True once the agent switched branch itself (or `--branch` was given): git no longer moves it. */
  pinned: boolean;
  /** The work tree whose git branch scoped memories follow: `--cwd`, then the client's first root. */
  workTree: string;
  syncing?: Promise<void>;
}

/** The client's `roots/list` request; `relatedRequestId` routes it over the stream of that request (HTTP). */
export type ListRoots = (relatedRequestId?: RequestId) => Promise<{ roots: readonly { uri: string }[] }>;

/** What every tool, resource and prompt of one session shares (HTTP sessions share the store and the branch). */
export class ServerContext {
  /** Always allowed: `--cwd` and the store's data directory. */
  private readonly fixedRoots: readonly string[];
  /** The directories of the file:// roots the client declares now (this session's). */
  private clientRoots: readonly string[] = [];
  /** How to ask the client for its roots (when it declares them). */
  private listRoots: ListRoots | undefined;
  /** The client's roots are to be read again before they are used. */
  private rootsStale = false;
  private rootsRead: Promise<void> | undefined;
  private rootsGeneration = 0;

  constructor(
    readonly memory: AgentMemory,
    readonly config: McpServerConfig,
    readonly log: (message: string) => void = (message) => process.stderr.write(`agentmem-mcp: ${message}\n`),
    private readonly branch: BranchState = { pinned: config.branch !== undefined, workTree: config.cwd },
  ) {
    this.fixedRoots = [resolve(config.cwd), ...(config.db ? [dirname(resolve(config.cwd, config.db))] : [])];
  }

  get branchPinned(): boolean {
    return this.branch.pinned;
  }

  set branchPinned(pinned: boolean) {
    this.branch.pinned = pinned;
  }

  /** The context of another session of this server: the same store and branch, roots of its own client. */
  forSession(): ServerContext {
    return new ServerContext(this.memory, this.config, this.log, this.branch);
  }

  /**
   * Paths the agent gives (snapshots) are relative to the client's working
   * directory and confined: they must stay under `--cwd`, the store's data
   * directory or a root the client declares now, also after following
   * symbolic links; a file to write needs an existing directory (none is
   * created).
   */
  async resolvePath(path: string, options: { write?: boolean } = {}): Promise<string> {
    await this.readRootsIfStale();
    return confinePath(path, this.config.cwd, [...this.fixedRoots, ...this.clientRoots], options.write === true);
  }

  /**
   * The session began with a client that declares roots, or the client said
   * they changed: the roots known so far are dropped at once (a withdrawn root
   * refuses from now on), and the list is read again before the next request.
   */
  rootsChanged(list: ListRoots): void {
    this.listRoots = list;
    this.rootsGeneration++;
    this.clientRoots = [];
    this.rootsStale = true;
    this.rootsRead = undefined;
  }

  /** Before each request: the client's roots when they changed (asked along with `requestId`), then git's branch. */
  async beforeRequest(requestId?: RequestId): Promise<void> {
    await this.readRootsIfStale(requestId);
    await this.syncBranch();
  }

  private async readRootsIfStale(requestId?: RequestId): Promise<void> {
    while (this.rootsStale && this.listRoots) {
      this.rootsRead ??= this.readRoots(this.listRoots, this.rootsGeneration, requestId);
      await this.rootsRead;
    }
  }

  /**
   * Every file:// root of the client's list is allowed. Without a fixed
   * branch, project memories follow git in the first one (else in `--cwd`).
   */
  private async readRoots(list: ListRoots, generation: number, requestId?: RequestId): Promise<void> {
    let roots: readonly { uri: string }[] = [];
    try {
      ({ roots } = await list(requestId));
    } catch (error) {
      this.log(
        `could not read the client's roots; paths stay confined to ${this.fixedRoots.join(', ')}: ${(error as Error).message}`,
      );
    }
    if (generation !== this.rootsGeneration) return; // they changed again: the caller reads the new list
    const dirs: string[] = [];
    for (const root of roots) {
      const dir = rootDirectory(root.uri);
      if (dir) dirs.push(dir);
      else this.log(`ignored the root ${JSON.stringify(root.uri)}: not a local file URL`);
    }
    this.clientRoots = dirs;
    this.rootsStale = false;
    this.rootsRead = undefined;
    if (!this.branch.pinned) this.branch.workTree = dirs[0] ?? this.config.cwd;
  }

  /**
   * Before each request: the branch of the work tree now, so that a checkout
   * during a long session moves project memories with it. Detached HEAD or a
   * failing git keeps the current branch.
   */
  syncBranch(): Promise<void> {
    const branch = this.branch;
    if (branch.pinned) return Promise.resolve();
    branch.syncing ??= (async () => {
      try {
        const name = await detectGitBranch({ cwd: branch.workTree, fallback: this.memory.branch });
        if (!branch.pinned && name !== this.memory.branch) {
          this.memory.switchBranch(name);
          this.log(`branch ${name} (git in ${branch.workTree})`);
        }
      } finally {
        branch.syncing = undefined;
      }
    })();
    return branch.syncing;
  }
}

/** The local directory of a file:// root URI; undefined for another scheme, a remote host or a NUL in the path. */
function rootDirectory(uri: unknown): string | undefined {
  if (typeof uri !== 'string' || !/^file:/i.test(uri)) return undefined;
  try {
    const dir = fileURLToPath(uri);
    return dir.includes('\u0000') ? undefined : resolve(dir);
  } catch {
    return undefined;
  }
}
