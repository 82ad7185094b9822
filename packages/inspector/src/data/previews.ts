import {
  assertStrategy,
  type DiffResult,
  effectiveImportance,
  invalidInput,
  MERGE_STRATEGIES,
  type MergeStrategy,
  parseInstant,
  type PlannedConflict,
  statusOf,
  toMillis,
} from '@agentmem/core';
import type { Stores } from '../stores';

/** Items listed per category; counts always cover everything, and the page says how many are not listed. */
const LISTED = 200;

type Outcome = 'keep local' | 'overwrite with source' | 'import a copy';

/** What `applyMerge` does with one conflict under a strategy (skills cannot be doubled: keep_both acts as newer_wins). */
export function conflictOutcome(c: PlannedConflict, strategy: MergeStrategy): Outcome {
  const effective = strategy === 'keep_both' && c.local.kind !== 'memory' ? 'newer_wins' : strategy;
  if (effective === 'keep_both') return 'import a copy';
  const takeRemote = effective === 'remote_wins' || (effective === 'newer_wins' && c.newer === 'remote');
  return takeRemote ? 'overwrite with source' : 'keep local';
}

export interface MergePreview {
  source: { label: string; kind: string };
  counts: { new: number; newSkills: number; duplicates: number; conflicts: number; scanned: number };
  embedderMismatch: boolean;
  /** Per strategy: how many records each outcome would get. */
  strategies: Record<MergeStrategy, { imported: number; overwritten: number; keptLocal: number; keptBoth: number }>;
  conflicts: {
    id: string;
    namespace: string;
    newer: string;
    local: ReturnType<DiffResult['toJSON']>['conflicts'][number]['local'];
    remote: ReturnType<DiffResult['toJSON']>['conflicts'][number]['remote'];
    outcomes: Record<MergeStrategy, Outcome>;
  }[];
  imports: ReturnType<DiffResult['toJSON']>['imports'];
  duplicates: ReturnType<DiffResult['toJSON']>['duplicates'];
  /** How many of each list are not listed (LISTED per list). */
  unlisted: { conflicts: number; imports: number; duplicates: number };
}

export function describeDiff(diff: DiffResult): MergePreview {
  const json = diff.toJSON();
  const plan = diff.plan;
  const strategies = Object.fromEntries(
    MERGE_STRATEGIES.map((strategy) => {
      const outcomes = plan.conflicts.map((c) => conflictOutcome(c, strategy));
      const keptBoth = outcomes.filter((o) => o === 'import a copy').length;
      return [
        strategy,
        {
          imported: plan.imports.length,
          overwritten: outcomes.filter((o) => o === 'overwrite with source').length,
          keptLocal: outcomes.filter((o) => o === 'keep local').length,
          keptBoth,
        },
      ];
    }),
  ) as MergePreview['strategies'];
  return {
    source: { label: plan.source.label, kind: plan.source.kind },
    counts: { ...json.counts, scanned: plan.scanned },
    embedderMismatch: plan.embedderMismatch,
    strategies,
    conflicts: json.conflicts.slice(0, LISTED).map((c, i) => ({
      ...c,
      outcomes: Object.fromEntries(MERGE_STRATEGIES.map((s) => [s, conflictOutcome(plan.conflicts[i]!, s)])) as Record<
        MergeStrategy,
        Outcome
      >,
    })),
    imports: json.imports.slice(0, LISTED),
    duplicates: json.duplicates.slice(0, LISTED),
    unlisted: {
      conflicts: Math.max(0, json.conflicts.length - LISTED),
      imports: Math.max(0, json.imports.length - LISTED),
      duplicates: Math.max(0, json.duplicates.length - LISTED),
    },
  };
}

function requirePath(path: string | undefined): string {
  if (!path?.trim())
    throw invalidInput(
      'Give the path of a snapshot file (made with `agentmem snapshot PATH` or `memory.snapshot(path)`).',
    );
  return path.trim();
}

function requireBranch(name: string | undefined, what: string): string {
  if (!name?.trim()) throw invalidInput(`Choose the ${what} branch.`);
  return name.trim();
}

/** The source and target of a branch merge, refused in the page's words when they are the same branch. */
function branchPair(input: { source?: string; into?: string }): { source: string; into: string } {
  const into = requireBranch(input.into, 'target');
  const source = requireBranch(input.source, 'source');
  if (source === into) {
    throw invalidInput(
      `${source} is both the branch to merge and the branch to merge into: choose two different branches.`,
      { source, into },
    );
  }
  return { source, into };
}

export async function previewSnapshot(
  stores: Stores,
  input: { path?: string; tenant?: string },
): Promise<MergePreview> {
  const memory = await stores.read({ tenant: input.tenant });
  return describeDiff(await memory.diff(requirePath(input.path)));
}

export async function previewBranch(
  stores: Stores,
  input: { source?: string; into?: string; tenant?: string },
): Promise<MergePreview> {
  const { source, into } = branchPair(input);
  const memory = await stores.read({ tenant: input.tenant, branch: into });
  return describeDiff(await memory.diffBranch(source, { into }));
}

export async function applySnapshot(stores: Stores, input: { path?: string; tenant?: string; strategy?: string }) {
  const memory = await stores.write({ tenant: input.tenant });
  const result = await memory.merge(requirePath(input.path), {
    strategy: assertStrategy(input.strategy ?? 'newer_wins'),
  });
  return { mergeId: result.mergeId, strategy: result.strategy, counts: result.counts, summary: result.summary() };
}

export async function applyBranch(
  stores: Stores,
  input: { source?: string; into?: string; tenant?: string; strategy?: string },
) {
  const { source, into } = branchPair(input);
  const memory = await stores.write({ tenant: input.tenant, branch: into });
  const result = await memory.mergeBranch(source, {
    into,
    strategy: assertStrategy(input.strategy ?? 'newer_wins'),
  });
  return { mergeId: result.mergeId, strategy: result.strategy, counts: result.counts, summary: result.summary() };
}

export async function undo(stores: Stores, input: { mergeId?: string; tenant?: string }) {
  if (!input.mergeId) throw invalidInput('Choose the merge to undo.');
  const result = await (await stores.write({ tenant: input.tenant })).undoMerge(input.mergeId);
  return { ...result, summary: result.summary() };
}

export async function listMerges(stores: Stores, tenant?: string) {
  return (await stores.read({ tenant })).listMerges();
}

export async function listBranches(stores: Stores, tenant?: string) {
  return (await stores.read({ tenant })).listBranches();
}

export interface DecayPreview {
  at: string;
  threshold: number;
  /** The dry run of applyDecay at that instant (every tenant): what a pass would prune. */
  report: { scanned: number; decayed: number; pruned: number; untouched: number };
  /** Active memories by effective importance at that instant, in bins of 0.05 from 0 to 1. */
  histogram: { from: number; to: number; count: number }[];
}

const BINS = 20;

/** A decay pass at any instant, written nowhere: applyDecay's dry run plus a histogram of effective importance. */
export async function previewDecay(stores: Stores, input: { at?: string }): Promise<DecayPreview> {
  const at = input.at ? parseInstant(input.at, 'at') : stores.now();
  const memory = await stores.read();
  const report = await memory.applyDecay({ now: at, dryRun: true });
  const counts = new Array<number>(BINS).fill(0);
  for await (const m of memory.memories({ allTenants: true })) {
    if (statusOf(m) !== 'active') continue;
    const eff = effectiveImportance(m.importance, toMillis(m.lastAccessedAt), at, stores.halfLifeHours(m.type));
    counts[Math.min(BINS - 1, Math.floor(eff * BINS))]! += 1;
  }
  return {
    at: new Date(at).toISOString(),
    threshold: report.threshold,
    report: { scanned: report.scanned, decayed: report.decayed, pruned: report.pruned, untouched: report.untouched },
    histogram: counts.map((count, i) => ({ from: i / BINS, to: (i + 1) / BINS, count })),
  };
}

/** Decays to now and prunes (a pass at a future instant would prune early: only now is applied). */
export async function applyDecayNow(stores: Stores) {
  const report = await (await stores.write()).applyDecay();
  return report;
}
