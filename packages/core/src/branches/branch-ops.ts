import { AgentMemoryError } from '../errors';
import { applyMerge } from '../merge/apply';
import { planMerge } from '../merge/plan';
import { DiffResult, type MergeResult } from '../merge/results';
import type { MemoryKeyReader, MergeProgress, MergeSource, MergeStrategy, SourceRecordReader } from '../merge/types';
import { assertBranchName, BRANCH_SCOPED_TYPES, branchOfNamespace, namespaceFor } from '../scope';
import { KIND, recordToMemory } from '../store/codec';
import type { MemoryStore } from '../store/memory-store';

const BATCH = 500;

export interface BranchInfo {
  branch: string;
  /** Records per scoped type (active and inactive memories). */
  project: number;
  reference: number;
  total: number;
  current: boolean;
}

export interface BranchMergeOptions {
  /** Target branch; default the current one. */
  into?: string;
  /**
   * How a conflict is resolved: a memory an earlier merge brought in and that
   * was edited since in the target (the source still has the old version).
   * Default `newer_wins`, which keeps the local edit.
   */
  strategy?: MergeStrategy;
  onProgress?: (progress: MergeProgress) => void;
  /** Fast key reader of the store's backend (AgentMemory passes its snapshot format's). */
  keyReader?: MemoryKeyReader;
  /** Fast reader of the source branch's records for the write policy (AgentMemory passes its snapshot format's). */
  sourceReader?: SourceRecordReader;
}

/** The namespaces that belong to a branch. */
export function branchNamespaces(branch: string): string[] {
  return BRANCH_SCOPED_TYPES.map((t) => namespaceFor(t, branch));
}

function branchSource(store: MemoryStore, source: string): MergeSource {
  return {
    backend: store.backend,
    label: source,
    kind: 'branch',
    embedder: { id: store.embedder.id, dimension: store.embedder.dimension },
  };
}

function branchPlan(store: MemoryStore, source: string, options: BranchMergeOptions) {
  const from = assertBranchName(source);
  const into = assertBranchName(options.into ?? store.branch);
  if (from === into)
    throw new AgentMemoryError(
      'INVALID_INPUT',
      `Cannot merge branch ${from} into itself; pass { into: <other branch> }.`,
    );
  const map = (ns: string) => ns.replace(/:.*$/, `:${into}`);
  return planMerge(store, branchSource(store, from), {
    namespaces: branchNamespaces(from),
    mapNamespace: map,
    onProgress: options.onProgress,
    keyReader: options.keyReader,
    sourceReader: options.sourceReader,
  });
}

/** What merging `source` into a branch would import; writes nothing. */
export async function diffBranch(
  store: MemoryStore,
  source: string,
  options: BranchMergeOptions = {},
): Promise<DiffResult> {
  const started = performance.now();
  const plan = await branchPlan(store, source, options);
  return new DiffResult(plan, { durationMs: performance.now() - started, embeddingCalls: 0 });
}

/**
 * Copies a branch's project and reference memories into another branch
 * (default: the current one), skipping content already there, so merging
 * twice imports nothing the second time. Undo with `undoMerge(result.mergeId)`.
 */
export async function mergeBranch(
  store: MemoryStore,
  source: string,
  options: BranchMergeOptions = {},
): Promise<MergeResult> {
  const started = performance.now();
  const plan = await branchPlan(store, source, options);
  const result = await applyMerge(store, branchSource(store, source), plan, {
    strategy: options.strategy,
    onProgress: options.onProgress,
  });
  result.cost.durationMs = performance.now() - started;
  return result;
}

/** Every branch with scoped memories in this tenant, with counts (the current one even when empty). */
export async function listBranches(store: MemoryStore): Promise<BranchInfo[]> {
  await store.init();
  const byBranch = new Map<string, BranchInfo>();
  const info = (branch: string) => {
    let b = byBranch.get(branch);
    if (!b) {
      b = { branch, project: 0, reference: 0, total: 0, current: branch === store.branch };
      byBranch.set(branch, b);
    }
    return b;
  };
  info(store.branch);
  for (const n of await store.backend.namespaces({ tenant: store.tenant })) {
    const branch = branchOfNamespace(n.namespace);
    if (branch === undefined) continue;
    const b = info(branch);
    if (n.namespace.startsWith('project:')) b.project += n.count;
    else b.reference += n.count;
    b.total += n.count;
  }
  return [...byBranch.values()].sort((a, b) => a.branch.localeCompare(b.branch));
}

/**
 * Deletes a branch's project and reference memories (globals stay). Refuses
 * the current branch unless `force`. Each deletion is in history (`forget`).
 */
export async function deleteBranch(
  store: MemoryStore,
  branch: string,
  options: { force?: boolean; onProgress?: (progress: MergeProgress) => void } = {},
): Promise<{ branch: string; deleted: number }> {
  await store.init();
  const name = assertBranchName(branch);
  if (name === store.branch && !options.force) {
    throw new AgentMemoryError(
      'INVALID_INPUT',
      `${name} is the current branch; switch to another branch first, or pass { force: true }.`,
      { details: { branch: name } },
    );
  }
  // Collect ids first: deleting while paging could skip records on cursor-by-offset backends.
  const ids: string[] = [];
  for await (const r of store.scanRecords({ tenant: store.tenant, namespaces: branchNamespaces(name) })) ids.push(r.id);
  let deleted = 0;
  await store.transaction(async () => {
    for (let i = 0; i < ids.length; i += BATCH) {
      const records = await store.backend.get(ids.slice(i, i + BATCH), { tenant: store.tenant, withVectors: false });
      const memories = records.filter((r) => r.attributes.kind === KIND.memory).map(recordToMemory);
      await store.foldCreates(records);
      deleted += await store.backend.delete(records.map((r) => r.id));
      await store.recordHistory(
        memories.map((memory) => ({ memory, action: 'forget', detail: `delete branch ${name}` })),
      );
      options.onProgress?.({ phase: 'apply', done: Math.min(i + BATCH, ids.length), total: ids.length });
    }
  });
  return { branch: name, deleted };
}
