import { describe, expect, it } from 'vitest';
import type { CostReport } from '../contracts';
import { DiffResult, type MergeCounts, MergeResult } from './results';
import type { MergePlan } from './types';

const cost: CostReport = { durationMs: 0, embeddingCalls: 0 };

/** A plan with `n` memories to import, `d` duplicates and `c` conflicts (only their number matters here). */
function plan(n: number, d: number, c: number, embedderMismatch = false): MergePlan {
  const memory = { remote: { kind: 'memory' } };
  return {
    source: { label: 'other.agentmem', kind: 'snapshot', embedder: { id: 'other', dimension: 8 } },
    namespaces: [],
    imports: Array(n).fill(memory),
    duplicates: Array(d).fill({}),
    conflicts: Array(c).fill({}),
    embedderMismatch,
    scanned: n + d + c,
  } as unknown as MergePlan;
}

function counts(imported: number, duplicates: number): MergeCounts {
  return {
    imported,
    importedSkills: 0,
    duplicates,
    conflicts: 0,
    overwritten: 0,
    keptLocal: 0,
    keptBoth: 0,
    reembedded: 0,
  };
}

describe('merge summaries', () => {
  it('say "1 memory", "1 duplicate" and "1 record", and the plural for every other count', () => {
    expect(new DiffResult(plan(1, 1, 0), cost).summary()).toBe('New: 1 memory / Duplicates: 1 / Conflicts: 0');
    expect(new DiffResult(plan(0, 2, 0), cost).summary()).toBe('New: 0 memories / Duplicates: 2 / Conflicts: 0');
    expect(new DiffResult(plan(1, 0, 0, true), cost).summary()).toContain('to re-embed 1 record.');
    expect(new DiffResult(plan(2, 0, 0, true), cost).summary()).toContain('to re-embed 2 records.');
    const merged = (n: number, d: number) => new MergeResult('m1', 'newer_wins', counts(n, d), plan(n, d, 0), cost);
    expect(merged(1, 1).summary()).toBe('Imported: 1 new memory / Skipped: 1 duplicate / Conflicts: 0');
    expect(merged(0, 0).summary()).toBe('Imported: 0 new memories / Skipped: 0 duplicates / Conflicts: 0');
    expect(merged(1204, 2).summary()).toBe('Imported: 1204 new memories / Skipped: 2 duplicates / Conflicts: 0');
  });
});
