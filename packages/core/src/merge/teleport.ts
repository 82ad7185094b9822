import { resolve } from 'node:path';
import { AgentMemoryError } from '../errors';
import { SYSTEM_NAMESPACE_PREFIX } from '../scope';
import type { MemoryStore } from '../store/memory-store';
import { applyMerge } from './apply';
import { planMerge } from './plan';
import { DiffResult, type MergeResult } from './results';
import { openSnapshot } from './snapshot';
import type { SnapshotFormat } from './snapshot-format';
import type { ApplyOptions, MergeSource, OtherTenants, PlanOptions } from './types';

export interface TeleportDiffOptions extends Pick<PlanOptions, 'namespaces' | 'allTenants' | 'onProgress'> {}
export interface TeleportMergeOptions extends TeleportDiffOptions, Omit<ApplyOptions, 'onProgress'> {}

async function withSnapshot<T>(
  path: string,
  format: SnapshotFormat | undefined,
  fn: (source: MergeSource) => Promise<T>,
) {
  const { backend, manifest } = await openSnapshot(path, format);
  const label = resolve(path);
  const changed = (cause?: unknown) =>
    new AgentMemoryError(
      'CONFLICT',
      `${label} was written to while it was merged (another process has it open as a store); nothing was merged. Close that store, then try again.`,
      { cause, details: { path: label } },
    );
  const assertUnchanged = () => {
    if (format?.changedSinceOpen?.(backend)) throw changed();
  };
  try {
    return await fn({ backend, label, kind: 'snapshot', embedder: manifest.embedder, assertUnchanged });
  } catch (error) {
    // A read of pages another process was writing fails in any way (SQLite's "malformed", a bad record): say why.
    if (format?.changedSinceOpen?.(backend) && !AgentMemoryError.hasCode(error, 'CONFLICT')) throw changed(error);
    throw error;
  } finally {
    await backend.close();
  }
}

/**
 * Memories of the snapshot in other tenants than the store's (in the namespaces asked for): a merge scoped
 * to one tenant leaves them out, and its result says so instead of reporting "nothing" silently.
 */
async function otherTenants(
  store: MemoryStore,
  source: MergeSource,
  options: TeleportDiffOptions,
): Promise<OtherTenants | undefined> {
  if (options.allTenants) return undefined;
  const wanted = options.namespaces;
  const counts = (await source.backend.namespaces({ tenant: null })).filter(
    (n) =>
      n.tenant !== store.tenant &&
      !n.namespace.startsWith(SYSTEM_NAMESPACE_PREFIX) &&
      (wanted === undefined ||
        wanted.some((w) => (w.endsWith('*') ? n.namespace.startsWith(w.slice(0, -1)) : n.namespace === w))),
  );
  const memories = counts.reduce((sum, n) => sum + n.count, 0);
  return memories === 0
    ? undefined
    : { tenant: store.tenant, memories, tenants: [...new Set(counts.map((n) => n.tenant))].sort() };
}

/** The merge plan of a snapshot file against the store. Writes nothing. */
export async function diffSnapshot(
  store: MemoryStore,
  path: string,
  format: SnapshotFormat | undefined,
  options: TeleportDiffOptions = {},
): Promise<DiffResult> {
  const started = performance.now();
  return withSnapshot(path, format, async (source) => {
    const plan = await planMerge(store, source, {
      ...options,
      keyReader: format?.readMemoryKeys,
      sourceReader: format?.readSourceRecords,
    });
    plan.otherTenants = await otherTenants(store, source, options);
    source.assertUnchanged?.(); // the count of other tenants read the source after the plan's check
    return new DiffResult(plan, { durationMs: performance.now() - started, embeddingCalls: 0 });
  });
}

/** Merges a snapshot file into the store, all or nothing (or in committed parts: `commitEvery`). */
export async function mergeSnapshot(
  store: MemoryStore,
  path: string,
  format: SnapshotFormat | undefined,
  options: TeleportMergeOptions = {},
): Promise<MergeResult> {
  const started = performance.now();
  return withSnapshot(path, format, async (source) => {
    const plan = await planMerge(store, source, {
      ...options,
      keyReader: format?.readMemoryKeys,
      sourceReader: format?.readSourceRecords,
    });
    plan.otherTenants = await otherTenants(store, source, options);
    const result = await applyMerge(store, source, plan, options);
    result.cost.durationMs = performance.now() - started; // the whole merge: open, plan and apply
    return result;
  });
}
