import type { CostReport } from '../contracts';
import type { MergePlan, MergeStrategy } from './types';

/** `1 memory`, `2 memories`: a count with the noun that fits it. */
export function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** Counts of a plan, by what each source record would become. */
function planCounts(plan: MergePlan) {
  const skills = plan.imports.filter((i) => i.remote.kind !== 'memory').length;
  return {
    newMemories: plan.imports.length - skills,
    newSkills: skills,
    duplicates: plan.duplicates.length,
    conflicts: plan.conflicts.length,
  };
}

const tenantName = (t: string) => (t === '' ? 'the default tenant' : `"${t}"`);

/**
 * The line a tenant-scoped snapshot merge adds when the snapshot holds memories of other tenants: none of
 * this tenant ("nothing to merge" would hide why), or some left out.
 */
export function otherTenantsNote(plan: MergePlan): string | undefined {
  const other = plan.otherTenants;
  if (!other) return undefined;
  const names = other.tenants.slice(0, 5).map(tenantName).join(', ') + (other.tenants.length > 5 ? ', …' : '');
  const tenants = `${plural(other.tenants.length, 'other tenant', 'other tenants')} (${names})`;
  const fix = `merge with allTenants to include every tenant, or open the store as ${other.tenants.length === 1 ? 'that tenant' : 'one of them'}`;
  if (plan.scanned > 0) return `Left out: ${plural(other.memories, 'memory', 'memories')} of ${tenants}; ${fix}.`;
  const belong = other.memories === 1 ? 'memory belongs' : `${other.memories} memories belong`;
  return `This snapshot has nothing of ${tenantName(other.tenant)}: its ${belong} to ${tenants}; ${fix}.`;
}

function describeEntry(e: MergePlan['conflicts'][number]['local']) {
  return {
    id: e.id,
    namespace: e.namespace,
    kind: e.kind,
    content: e.memory?.content ?? e.record.text,
    updatedAt: e.updatedAt ? new Date(e.updatedAt).toISOString() : null,
    agentId: e.memory?.agentId ?? null,
  };
}

/** What `diff` returns: the plan, and how a merge would go. Nothing was written. */
export class DiffResult {
  readonly newMemories: number;
  readonly newSkills: number;
  readonly duplicates: number;
  readonly conflicts: number;
  constructor(
    readonly plan: MergePlan,
    readonly cost: CostReport,
  ) {
    const counts = planCounts(plan);
    this.newMemories = counts.newMemories;
    this.newSkills = counts.newSkills;
    this.duplicates = counts.duplicates;
    this.conflicts = counts.conflicts;
  }

  summary(): string {
    const skills = this.newSkills > 0 ? `, ${plural(this.newSkills, 'skill', 'skills')}` : '';
    const lines = [
      `New: ${plural(this.newMemories, 'memory', 'memories')}${skills} / Duplicates: ${this.duplicates} / Conflicts: ${this.conflicts}`,
    ];
    if (this.plan.embedderMismatch) {
      lines.push(
        `Embedder differs: source "${this.plan.source.embedder.id}" vs local; merge with reembed to re-embed ${plural(this.newMemories + this.newSkills + this.conflicts, 'record', 'records')}.`,
      );
    }
    const others = otherTenantsNote(this.plan);
    if (others) lines.push(others);
    return lines.join('\n');
  }

  toJSON() {
    return {
      source: this.plan.source,
      namespaces: this.plan.namespaces,
      scanned: this.plan.scanned,
      embedderMismatch: this.plan.embedderMismatch,
      ...(this.plan.otherTenants ? { otherTenants: this.plan.otherTenants } : {}),
      counts: {
        new: this.newMemories,
        newSkills: this.newSkills,
        duplicates: this.duplicates,
        conflicts: this.conflicts,
      },
      imports: this.plan.imports.map((i) => ({
        ...describeEntry(i.remote),
        targetNamespace: i.targetNamespace,
        targetId: i.targetId,
      })),
      duplicates: this.plan.duplicates,
      conflicts: this.plan.conflicts.map((c) => ({
        id: c.id,
        namespace: c.targetNamespace,
        newer: c.newer,
        local: describeEntry(c.local),
        remote: describeEntry(c.remote),
      })),
      cost: this.cost,
    };
  }
}

export interface MergeCounts {
  /** New records written (memories + skills), not counting keep_both copies. */
  imported: number;
  importedSkills: number;
  duplicates: number;
  conflicts: number;
  /** Conflicts resolved by writing the source version over the local one. */
  overwritten: number;
  /** Conflicts resolved by keeping the local version. */
  keptLocal: number;
  /** Conflicts resolved by importing the source version under a new id. */
  keptBoth: number;
  /** Source records re-embedded with the local embedder. */
  reembedded: number;
}

/** What `merge` did; `mergeId` undoes it. */
export class MergeResult {
  constructor(
    readonly mergeId: string,
    readonly strategy: MergeStrategy,
    readonly counts: MergeCounts,
    readonly plan: MergePlan,
    readonly cost: CostReport,
    /** Every merge this run committed (several with `commitEvery`), in order; `mergeId` is the last. */
    readonly mergeIds: readonly string[] = [mergeId],
  ) {}

  get imported(): number {
    return this.counts.imported;
  }

  summary(): string {
    const c = this.counts;
    const memories = c.imported - c.importedSkills;
    const skills = c.importedSkills > 0 ? `, ${plural(c.importedSkills, 'skill', 'skills')}` : '';
    const resolved: string[] = [];
    if (c.overwritten) resolved.push(`${c.overwritten} overwritten`);
    if (c.keptLocal) resolved.push(`${c.keptLocal} kept local`);
    if (c.keptBoth) resolved.push(`${c.keptBoth} kept both`);
    const conflicts = `Conflicts: ${c.conflicts}${resolved.length ? ` (${this.strategy}: ${resolved.join(', ')})` : ''}`;
    const parts = [
      `Imported: ${plural(memories, 'new memory', 'new memories')}${skills}`,
      `Skipped: ${plural(c.duplicates, 'duplicate', 'duplicates')}`,
      conflicts,
    ];
    if (c.reembedded) parts.push(`Re-embedded: ${c.reembedded}`);
    if (this.mergeIds.length > 1) parts.push(`Committed in ${this.mergeIds.length} merges`);
    const others = otherTenantsNote(this.plan);
    return others ? `${parts.join(' / ')}\n${others}` : parts.join(' / ');
  }

  toJSON() {
    return {
      mergeId: this.mergeId,
      mergeIds: this.mergeIds,
      strategy: this.strategy,
      source: this.plan.source,
      counts: this.counts,
      ...(this.plan.otherTenants ? { otherTenants: this.plan.otherTenants } : {}),
      cost: this.cost,
    };
  }
}

/** What `undoMerge` did. */
export class UndoResult {
  constructor(
    readonly mergeId: string,
    /** Imported records removed. */
    readonly removed: number,
    /** Overwritten records put back. */
    readonly restored: number,
    readonly cost: CostReport,
  ) {}

  summary(): string {
    return `Undid merge ${this.mergeId}: removed ${this.removed} imported / restored ${this.restored} overwritten`;
  }

  toJSON() {
    return { mergeId: this.mergeId, removed: this.removed, restored: this.restored, cost: this.cost };
  }
}
