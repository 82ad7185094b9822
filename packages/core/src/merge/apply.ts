import type { BackendRecord, Memory } from '../contracts';
import { AgentMemoryError, assertOneOf, invalidInput } from '../errors';
import { branchOfNamespace, HISTORY_NAMESPACE } from '../scope';
import { createEntryId, isHistoryPending, KIND, memoryToRecord, recordToMemory } from '../store/codec';
import type { MemoryStore } from '../store/memory-store';
import { newId, toMillis } from '../util';
import { type SerializedRecord, serializeRecord } from './codec';
import { recordAdmission } from './admit';
import { MERGE_KIND, MERGES_NAMESPACE, toEntry } from './plan';
import { MergeResult, type MergeCounts } from './results';
import {
  type ApplyOptions,
  MERGE_STRATEGIES,
  type MergeEntry,
  type MergePlan,
  type MergeSource,
  type MergeStrategy,
} from './types';

const BATCH = 500;

/** What a merge record (namespace `_merges`) keeps so that `undoMerge` can restore exactly. */
export interface MergeRecordPayload {
  id: string;
  at: string;
  agentId?: string;
  source: { label: string; kind: MergeSource['kind'] };
  strategy: MergeStrategy;
  namespaces: string[];
  status: 'applied' | 'undone';
  undoneAt?: string;
  counts: MergeCounts;
  /** Ids of records the merge created. */
  imported: string[];
  /** Local records as they were before the merge wrote over them (with vectors). */
  overwritten: SerializedRecord[];
  [key: string]: unknown;
}

interface Write {
  remote: MergeEntry;
  targetId: string;
  targetNamespace: string;
  /** Writes over an existing local record. */
  overwrite: boolean;
  /** keep_both: the local memory this copy conflicts with. */
  linkTo?: string;
}

export function assertStrategy(strategy: unknown): MergeStrategy {
  return assertOneOf(strategy, MERGE_STRATEGIES, 'merge strategy');
}

/**
 * Carries out a plan (or one part of it), all or nothing: inside one backend
 * transaction (or, for a backend without transactions, undone again on
 * failure). Every written memory gets `mergedFrom` and `mergeId` and a
 * `merge_import` history entry; a merge record keeps what was imported and
 * what was overwritten.
 */
async function applyPart(
  store: MemoryStore,
  source: MergeSource,
  plan: MergePlan,
  options: ApplyOptions = {},
): Promise<MergeResult> {
  const started = performance.now();
  const usage0 = { ...store.usage };
  const strategy = assertStrategy(options.strategy ?? 'newer_wins');
  const reembed = plan.embedderMismatch;
  if (reembed && !options.reembed) throw embedderMismatch(store, source);

  const writes: Write[] = plan.imports.map((i) => ({ ...i, overwrite: false }));
  const counts: MergeCounts = {
    imported: 0,
    importedSkills: 0,
    duplicates: plan.duplicates.length,
    conflicts: plan.conflicts.length,
    overwritten: 0,
    keptLocal: 0,
    keptBoth: 0,
    reembedded: 0,
  };
  for (const c of plan.conflicts) {
    const isMemory = c.remote.kind === KIND.memory;
    // Skills are unique by name, so two versions of one cannot coexist: keep_both falls back to newer_wins.
    const effective = strategy === 'keep_both' && !isMemory ? 'newer_wins' : strategy;
    const takeRemote = effective === 'remote_wins' || (effective === 'newer_wins' && c.newer === 'remote');
    if (effective === 'keep_both') {
      writes.push({
        remote: c.remote,
        targetId: newId('mem'),
        targetNamespace: c.targetNamespace,
        overwrite: false,
        linkTo: c.id,
      });
      counts.keptBoth++;
    } else if (takeRemote) {
      writes.push({ remote: c.remote, targetId: c.id, targetNamespace: c.targetNamespace, overwrite: true });
      counts.overwritten++;
    } else {
      counts.keptLocal++;
    }
  }
  for (const w of writes) {
    if (w.overwrite || w.linkTo) continue;
    counts.imported++;
    if (w.remote.kind !== KIND.memory) counts.importedSkills++;
  }

  const nowMs = Date.now();
  const mergeId = newId('merge', nowMs);
  const overwritten = await getAll(
    store,
    writes.filter((w) => w.overwrite).map((w) => w.targetId),
    true,
  );
  const record: MergeRecordPayload = {
    id: mergeId,
    at: new Date(nowMs).toISOString(),
    ...(store.agentId ? { agentId: store.agentId } : {}),
    source: { label: source.label, kind: source.kind },
    strategy,
    namespaces: plan.namespaces,
    status: 'applied',
    counts,
    imported: writes.filter((w) => !w.overwrite).map((w) => w.targetId),
    overwritten: overwritten.map(serializeRecord),
    ...(options.note ? { note: options.note } : {}),
  };
  const detail = `merge ${mergeId} from ${source.label}`;
  const admit = recordAdmission(source, store.writeLimits, reembed ? undefined : store.embedder.dimension);

  await allOrNothing(
    store,
    async () => {
      await store.backend.upsert([mergeRecordToBackend(record, store.tenant)]);
      // Memories this merge overwrites whose create entry is still implied: written as rows first.
      await store.foldCreates(overwritten);
      for (let i = 0; i < writes.length; i += BATCH) {
        const batch = writes.slice(i, i + BATCH);
        const remote = new Map(
          (
            await source.backend.get(
              batch.map((w) => w.remote.id),
              { tenant: null, withVectors: !reembed },
            )
          ).map((r) => [r.id, r]),
        );
        const fresh = batch.map((w) => {
          const r = remote.get(w.remote.id);
          if (!r) {
            throw new AgentMemoryError(
              'CONFLICT',
              `Record ${w.remote.id} vanished from ${source.label} during the merge; nothing was merged. Try again.`,
            );
          }
          // The policy again (deterministic), now with the vector: what is written is what the plan checked.
          const clean = admit(r);
          if (toEntry(clean).hash !== w.remote.hash) {
            throw new AgentMemoryError(
              'CONFLICT',
              `Record ${w.remote.id} of ${source.label} changed during the merge; nothing was merged. Try again.`,
            );
          }
          return clean;
        });
        const vectors = reembed ? await store.embedDocuments(fresh.map((r) => r.text)) : fresh.map((r) => r.vector);
        if (reembed) counts.reembedded += fresh.length;
        const records: BackendRecord[] = [];
        const memories: Memory[] = [];
        batch.forEach((w, j) => {
          const vector = vectors[j];
          if (w.remote.kind === KIND.memory) {
            const memory = importedMemory(recordToMemory(fresh[j]!), w, source, mergeId);
            memories.push(memory);
            records.push(memoryToRecord(memory, vector));
          } else {
            const r: BackendRecord = { ...fresh[j]!, id: w.targetId, namespace: w.targetNamespace };
            if (vector) r.vector = vector;
            else delete r.vector;
            records.push(r);
          }
        });
        await store.backend.upsert(records);
        await store.recordHistory(memories.map((memory) => ({ memory, action: 'merge_import', detail })));
        options.onProgress?.({ phase: 'apply', done: Math.min(i + BATCH, writes.length), total: writes.length });
      }
      source.assertUnchanged?.(); // before the commit: what was read is what the file holds
    },
    // Compensation for backends without transactions: put back what was there.
    async () => {
      try {
        await restore(store, overwritten);
        await deleteFoldedCreates(store, overwritten);
        await deleteHistory(store, [...record.imported, ...overwritten.map((r) => r.id)], detail);
        // The merge record goes last: while it exists, undoMerge can finish what this could not.
        await store.backend.delete([...record.imported, mergeId]);
      } catch (rollbackError) {
        throw new AgentMemoryError(
          'BACKEND_ERROR',
          `Merge ${mergeId} failed midway and rolling it back failed too (${(rollbackError as Error)?.message ?? rollbackError}); ` +
            `the store may hold part of it. When the backend answers again, run undoMerge('${mergeId}') (CLI: agentmem undo-merge ${mergeId}).`,
          { cause: rollbackError, details: { mergeId } },
        );
      }
    },
  );
  const cost = {
    durationMs: performance.now() - started,
    embeddingCalls: store.usage.calls - usage0.calls,
    embeddingTokens: store.usage.tokens - usage0.tokens,
  };
  return new MergeResult(mergeId, strategy, counts, plan, cost);
}

/**
 * Carries out a merge plan. Without `commitEvery`, one all-or-nothing merge;
 * with it, parts of that many records (new ones, then conflicts), each
 * committed as a merge of its own; the result adds them up.
 */
export async function applyMerge(
  store: MemoryStore,
  source: MergeSource,
  plan: MergePlan,
  options: ApplyOptions = {},
): Promise<MergeResult> {
  const size = options.commitEvery;
  if (size === undefined) return applyPart(store, source, plan, options);
  if (!Number.isSafeInteger(size) || size < 1) {
    throw invalidInput(`commitEvery must be a positive whole number of records, got ${JSON.stringify(size)}.`);
  }
  const entries = [...plan.imports.map((i) => ({ i })), ...plan.conflicts.map((c) => ({ c }))];
  const parts: MergePlan[] = [];
  for (let at = 0; at === 0 || at < entries.length; at += size) {
    const slice = entries.slice(at, at + size);
    parts.push({
      ...plan,
      imports: slice.flatMap((e) => ('i' in e ? [e.i] : [])),
      conflicts: slice.flatMap((e) => ('c' in e ? [e.c] : [])),
      duplicates: at === 0 ? plan.duplicates : [],
    });
  }
  const results: MergeResult[] = [];
  let done = 0;
  for (const part of parts) {
    const result = await applyPart(store, source, part, {
      ...options,
      onProgress: (p) => options.onProgress?.({ ...p, done: done + p.done, total: entries.length }),
    });
    done += part.imports.length + part.conflicts.length;
    results.push(result);
  }
  const last = results[results.length - 1]!;
  const counts = { ...last.counts };
  const cost = { durationMs: 0, embeddingCalls: 0, embeddingTokens: 0 };
  for (const r of results.slice(0, -1)) {
    for (const key of Object.keys(counts) as (keyof MergeCounts)[]) counts[key] += r.counts[key];
  }
  for (const r of results) {
    cost.durationMs += r.cost.durationMs;
    cost.embeddingCalls += r.cost.embeddingCalls;
    cost.embeddingTokens += r.cost.embeddingTokens ?? 0;
  }
  return new MergeResult(
    last.mergeId,
    last.strategy,
    counts,
    plan,
    cost,
    results.map((r) => r.mergeId),
  );
}

function importedMemory(remote: Memory, w: Write, source: MergeSource, mergeId: string): Memory {
  const memory: Memory = {
    ...remote,
    id: w.targetId,
    namespace: w.targetNamespace,
    mergedFrom: source.label,
    mergeId,
  };
  if (source.kind === 'branch') {
    const branch = branchOfNamespace(w.targetNamespace);
    if (branch) memory.branch = branch;
  }
  if (w.linkTo) memory.metadata = { ...remote.metadata, mergeConflictOf: w.linkTo };
  return memory;
}

export function embedderMismatch(store: MemoryStore, source: MergeSource): AgentMemoryError {
  return new AgentMemoryError(
    'EMBEDDER_MISMATCH',
    `${source.label} was built with embedder "${source.embedder.id}" (${source.embedder.dimension} dimensions), ` +
      `this store with "${store.embedder.id}" (${store.embedder.dimension}). Vectors of two embedders are never mixed: ` +
      'merge with { reembed: true } (CLI: --reembed) to re-embed its contents with the local embedder.',
    { details: { source: source.embedder, local: { id: store.embedder.id, dimension: store.embedder.dimension } } },
  );
}

export function mergeRecordToBackend(payload: MergeRecordPayload, tenant: string): BackendRecord {
  return {
    id: payload.id,
    namespace: MERGES_NAMESPACE,
    tenant,
    text: '',
    attributes: { kind: MERGE_KIND, at: toMillis(payload.at), status: payload.status },
    payload: payload as unknown as BackendRecord['payload'],
  };
}

/** Runs `fn` in a transaction, or with a compensating action when the backend has none. */
export async function allOrNothing(
  store: MemoryStore,
  fn: () => Promise<void>,
  compensate: () => Promise<void>,
): Promise<void> {
  if (store.backend.capabilities.transactions && store.backend.transaction) {
    await store.transaction(fn);
    return;
  }
  try {
    await fn();
  } catch (error) {
    await compensate();
    throw error;
  }
}

/** Removes the history entries a failed merge wrote (found by memory id and the merge's detail). */
async function deleteHistory(store: MemoryStore, memoryIds: readonly string[], detail: string): Promise<void> {
  for (let i = 0; i < memoryIds.length; i += BATCH) {
    const ids: string[] = [];
    for await (const r of store.scanRecords({
      tenant: null,
      namespaces: [HISTORY_NAMESPACE],
      where: { kind: KIND.history, action: 'merge_import', memoryId: { in: memoryIds.slice(i, i + BATCH) } },
    })) {
      if ((r.payload as { detail?: unknown }).detail === detail) ids.push(r.id);
    }
    if (ids.length > 0) await store.backend.delete(ids);
  }
}

/**
 * After records were put back as they were, with the marker of an implied create entry: removes the
 * create rows the merge folded for them (by their derived ids), so the store is as before the merge.
 */
export async function deleteFoldedCreates(store: MemoryStore, restored: readonly BackendRecord[]): Promise<void> {
  const ids = restored.filter(isHistoryPending).map((r) => createEntryId(r.id));
  for (let i = 0; i < ids.length; i += BATCH) await store.backend.delete(ids.slice(i, i + BATCH));
}

export async function getAll(
  store: MemoryStore,
  ids: readonly string[],
  withVectors: boolean,
): Promise<BackendRecord[]> {
  const out: BackendRecord[] = [];
  for (let i = 0; i < ids.length; i += BATCH) {
    out.push(...(await store.backend.get(ids.slice(i, i + BATCH), { tenant: null, withVectors })));
  }
  return out;
}

export async function restore(store: MemoryStore, records: readonly BackendRecord[]): Promise<void> {
  for (let i = 0; i < records.length; i += BATCH) await store.backend.upsert(records.slice(i, i + BATCH));
}
