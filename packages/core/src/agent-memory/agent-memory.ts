import {
  type ConflictCheckOptions,
  type ConflictCheckResult,
  type ConflictSettings,
  rememberWithConflictCheck,
} from '../conflicts';
import type { Memory, MemoryInput, MemoryType } from '../contracts';
import {
  type ApplyDecayOptions,
  applyDecay,
  type CompactOptions,
  type CompactReport,
  compactPruned,
  type DecayReport,
  type DecaySettings,
  restoreMemory,
} from '../decay';
import { type ContextBlockOptions, renderContextBlock } from '../prompt';
import {
  type BranchInfo,
  type BranchMergeOptions,
  type BranchSettings,
  deleteBranch,
  detectGitBranch,
  diffBranch,
  listBranches,
  mergeBranch,
} from '../branches';
import {
  createSnapshot,
  type DiffResult,
  diffSnapshot,
  listMerges,
  type MergeInfo,
  type MergeProgress,
  type MergeResult,
  mergeSnapshot,
  type SnapshotOptions,
  type SnapshotResult,
  type TeleportDiffOptions,
  type TeleportMergeOptions,
  type TeleportSettings,
  type UndoResult,
  undoMerge,
} from '../merge';
import { assertBranchName, recallNamespaces } from '../scope';
import { sessionSummaryId } from '../sessions';
import { type ActivatedSkill, formatForPrompt, type SkillSettings, SkillRegistry } from '../skills';
import { MemoryStore, type MemoryStoreOptions, type RecallResult } from '../store/memory-store';
import { validateQuery, validateSessionId } from '../store/validate';

export interface AgentMemoryOptions
  extends MemoryStoreOptions,
    DecaySettings,
    ConflictSettings,
    BranchSettings,
    TeleportSettings,
    SkillSettings {}

/** The line under "## Other available skills" in catalog mode. */
export const SKILL_CATALOG_HINT = 'To follow one, call the load_skill tool with its name and read its instructions.';

export interface ContextOptions extends ContextBlockOptions {
  /** The files the user is working on (activate skills by glob). */
  files?: readonly string[];
  /** The same as `files`: one path or several. */
  filePath?: string | readonly string[];
  /** How many memories to recall; default 5. */
  k?: number;
  types?: readonly MemoryType[];
  /** Memories below this final score are left out; default 0.2. */
  minScore?: number;
  /** How many skills to activate besides `alwaysApply` ones; default 3 (0: none). */
  skillK?: number;
  /** Also list inactive skills by name and description (progressive disclosure); default false. */
  discloseSkills?: boolean;
  /**
   * Catalog mode, as Claude Code does: active skills in full, then the rest of the library by name and
   * one-line description, most relevant first, within the skills budget; the model reads one in full
   * with the `load_skill` tool (AI SDK `memoryTools`, LangChain `loadSkillTool`, MCP). Default false.
   */
  skillCatalog?: boolean;
  /** Budget of the skills section in characters; default 60% of `maxChars`. */
  skillsMaxChars?: number;
  /** Put this session's latest summary first in the block (see SessionSummary). */
  sessionId?: string;
}

export interface PromptContext {
  memories: RecallResult[];
  /** Skills the message activated, best first (see docs/skills.md). */
  skills: ActivatedSkill[];
  /** The rendered, delimited system block ('' when nothing is relevant). */
  block: string;
}

/**
 * The facade adapters use: one object over a backend and an embedder (plus
 * tenant and branch) that remembers, recalls and answers "what belongs in the
 * prompt for this message". Skills, decay, branches and teleport attach here.
 */
export class AgentMemory extends MemoryStore {
  /** This tenant's skills, stored with the memories (docs/skills.md). */
  readonly skills: SkillRegistry = new SkillRegistry(this, (this.options as AgentMemoryOptions).skillActivation);

  /** Memories and skills relevant to one user message, rendered for the system prompt. */
  async contextFor(message: string, options: ContextOptions = {}): Promise<PromptContext> {
    await this.init();
    if (typeof message === 'string' && message.trim() !== '') validateQuery(message, 'contextFor()');
    const memories =
      typeof message === 'string' && message.trim() !== ''
        ? await this.recall(message, { k: options.k ?? 5, types: options.types, minScore: options.minScore ?? 0.2 })
        : [];
    const skills =
      typeof message === 'string'
        ? await this.skills.activate(message, { files: options.files, filePath: options.filePath, k: options.skillK })
        : [];
    const rendered = formatForPrompt(skills, {
      maxChars: options.skillsMaxChars ?? Math.floor((options.maxChars ?? 6000) * 0.6),
      ...(options.skillCatalog
        ? {
            inactive: await this.skills.catalog(message, { files: options.files, filePath: options.filePath }),
            inactiveHint: SKILL_CATALOG_HINT,
          }
        : options.discloseSkills
          ? { inactive: await this.skills.list() }
          : {}),
    });
    const summary = options.sessionId
      ? (await this.get(sessionSummaryId(this.tenant, validateSessionId(options.sessionId))))?.content
      : undefined;
    return { memories, skills, block: renderContextBlock({ summary, skills: rendered, memories }, options) };
  }

  /**
   * Writes a memory unless it contradicts what is stored: similar memories of
   * the same type and namespace with different content are conflicts, resolved
   * by `supersede` (default), `keep_both` or `keep_existing`. The write path
   * for facts an agent learns (extraction, tools).
   */
  async rememberWithConflictCheck(input: MemoryInput, options: ConflictCheckOptions = {}): Promise<ConflictCheckResult> {
    await this.init();
    return rememberWithConflictCheck(this, input, this.options as AgentMemoryOptions, options, this.clock());
  }

  /** Decays every memory of every tenant to `now` (default: the clock) and prunes what fell below the threshold. */
  async applyDecay(options: ApplyDecayOptions = {}): Promise<DecayReport> {
    return applyDecay(this, this.options as AgentMemoryOptions, { ...options, now: options?.now ?? this.clock() });
  }

  /** Brings a pruned or superseded memory back into recall (its decay clock restarts). */
  async restore(id: string): Promise<Memory> {
    await this.init();
    return restoreMemory(this, id, this.clock());
  }

  /** Deletes pruned memories for good (their history stays). */
  async compact(options: CompactOptions = {}): Promise<CompactReport> {
    return compactPruned(this, options);
  }

  // ---------------------------------------------------------------- branches (docs/branches.md)

  /** Makes `branch` the current one for scoped memories; returns the previous branch. */
  switchBranch(branch: string): string {
    const previous = this.branchName;
    this.branchName = assertBranchName(branch);
    return previous;
  }

  /** The namespaces recall sees now: the globals and the current branch's. */
  recallNamespaces(): string[] {
    return recallNamespaces(this.branchName);
  }

  listBranches(): Promise<BranchInfo[]> {
    return listBranches(this);
  }

  /** Imports a branch's project and reference memories into `into` (default: current), deduplicated. */
  mergeBranch(source: string, options: BranchMergeOptions = {}): Promise<MergeResult> {
    return mergeBranch(this, source, { ...this.branchReaders(), ...options });
  }

  diffBranch(source: string, options: BranchMergeOptions = {}): Promise<DiffResult> {
    return diffBranch(this, source, { ...this.branchReaders(), ...options });
  }

  /** The snapshot format's fast reads of this store's own records, for branch plans (the source is this store). */
  private branchReaders(): Pick<BranchMergeOptions, 'keyReader' | 'sourceReader'> {
    const format = (this.options as AgentMemoryOptions).snapshotFormat;
    return { keyReader: format?.readMemoryKeys, sourceReader: format?.readSourceRecords };
  }

  /** Deletes a branch's scoped memories (globals stay); refuses the current branch unless `force`. */
  deleteBranch(
    branch: string,
    options: { force?: boolean; onProgress?: (p: MergeProgress) => void } = {},
  ): Promise<{ branch: string; deleted: number }> {
    return deleteBranch(this, branch, options);
  }

  // ---------------------------------------------------------------- teleport (docs/teleport.md)

  /** Writes the whole store into one snapshot file (needs the `snapshotFormat` option). */
  snapshot(path: string, options: SnapshotOptions = {}): Promise<SnapshotResult> {
    return createSnapshot(this, path, (this.options as AgentMemoryOptions).snapshotFormat, options);
  }

  /** What merging a snapshot file would do; writes nothing. */
  diff(path: string, options: TeleportDiffOptions = {}): Promise<DiffResult> {
    return diffSnapshot(this, path, (this.options as AgentMemoryOptions).snapshotFormat, options);
  }

  /** Merges a snapshot file, all or nothing (strategy default `newer_wins`). */
  merge(path: string, options: TeleportMergeOptions = {}): Promise<MergeResult> {
    return mergeSnapshot(this, path, (this.options as AgentMemoryOptions).snapshotFormat, options);
  }

  /** Restores the state before a merge (snapshot or branch). */
  undoMerge(mergeId: string, options: { onProgress?: (p: MergeProgress) => void } = {}): Promise<UndoResult> {
    return undoMerge(this, mergeId, options);
  }

  /** Every merge of this tenant, newest first. */
  listMerges(): Promise<MergeInfo[]> {
    return listMerges(this);
  }
}

/** Creates and opens an AgentMemory (checks the embedder against the store). */
export async function createAgentMemory(options: AgentMemoryOptions): Promise<AgentMemory> {
  if (options?.detectBranch) {
    const git = options.detectBranch === true ? {} : options.detectBranch;
    options = { ...options, branch: await detectGitBranch({ ...git, fallback: options.branch ?? 'main' }) };
  }
  const memory = new AgentMemory(options);
  await memory.init();
  return memory;
}
