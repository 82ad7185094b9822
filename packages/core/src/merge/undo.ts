import { AgentMemoryError } from '../errors';
import { KIND, recordToMemory } from '../store/codec';
import type { MemoryStore } from '../store/memory-store';
import { validateId } from '../store/validate';
import {
  allOrNothing,
  deleteFoldedCreates,
  getAll,
  type MergeRecordPayload,
  mergeRecordToBackend,
  restore,
} from './apply';
import { deserializeRecord } from './codec';
import { MERGE_KIND, MERGES_NAMESPACE } from './plan';
import { UndoResult } from './results';
import type { MergeProgress } from './types';

const BATCH = 500;

/**
 * Restores the state before a merge: removes what it imported, puts back
 * what it overwrote (content and vectors), all or nothing. Each touched
 * memory gets an `undo` history entry; the merge record is marked undone.
 */
export async function undoMerge(
  store: MemoryStore,
  mergeId: string,
  options: { onProgress?: (p: MergeProgress) => void } = {},
): Promise<UndoResult> {
  await store.init();
  validateId(mergeId);
  const started = performance.now();
  const merge = await readMerge(store, mergeId);
  if (merge.status === 'undone') {
    throw new AgentMemoryError('CONFLICT', `Merge ${mergeId} was already undone at ${merge.undoneAt}; nothing to do.`, {
      details: { mergeId },
    });
  }
  const overwritten = merge.overwritten.map(deserializeRecord);
  const detail = `undo merge ${mergeId}`;
  let removed = 0;
  await allOrNothing(
    store,
    async () => {
      for (let i = 0; i < merge.imported.length; i += BATCH) {
        const present = await getAll(store, merge.imported.slice(i, i + BATCH), false);
        const memories = present.filter((r) => r.attributes.kind === KIND.memory).map(recordToMemory);
        await store.foldCreates(present);
        removed += await store.backend.delete(present.map((r) => r.id));
        await store.recordHistory(memories.map((memory) => ({ memory, action: 'undo', detail })));
        options.onProgress?.({
          phase: 'undo',
          done: Math.min(i + BATCH, merge.imported.length),
          total: merge.imported.length,
        });
      }
      await store.foldCreatesOf(overwritten.map((r) => r.id));
      // The records as the merge found them: one whose create entry was implied is so again, and the
      // row the merge folded it into goes (after the restore: a cut between leaves both, read as one).
      await restore(store, overwritten);
      await deleteFoldedCreates(store, overwritten);
      await store.recordHistory(
        overwritten
          .filter((r) => r.attributes.kind === KIND.memory)
          .map((r) => ({ memory: recordToMemory(r), action: 'undo' as const, detail })),
      );
      const undone: MergeRecordPayload = { ...merge, status: 'undone', undoneAt: new Date().toISOString() };
      await store.backend.upsert([mergeRecordToBackend(undone, store.tenant)]);
    },
    async () => {
      throw new AgentMemoryError(
        'BACKEND_ERROR',
        `Undoing merge ${mergeId} failed midway on a backend without transactions; run undo-merge again to finish it.`,
      );
    },
  );
  return new UndoResult(mergeId, removed, overwritten.length, {
    durationMs: performance.now() - started,
    embeddingCalls: 0,
  });
}

async function readMerge(store: MemoryStore, mergeId: string): Promise<MergeRecordPayload> {
  const [record] = await store.backend.get([mergeId], { tenant: store.tenant, withVectors: false });
  if (!record || record.attributes.kind !== MERGE_KIND) {
    throw new AgentMemoryError(
      'NOT_FOUND',
      `No merge with id ${mergeId} in this store. List merges with listMerges() (CLI: agentmem merges).`,
      {
        details: { mergeId },
      },
    );
  }
  return record.payload as unknown as MergeRecordPayload;
}

/** A merge as listed (without the restore data). */
export interface MergeInfo {
  id: string;
  at: string;
  agentId?: string;
  source: MergeRecordPayload['source'];
  strategy: MergeRecordPayload['strategy'];
  status: MergeRecordPayload['status'];
  undoneAt?: string;
  counts: MergeRecordPayload['counts'];
}

/** Every merge of this tenant, newest first. */
export async function listMerges(store: MemoryStore): Promise<MergeInfo[]> {
  await store.init();
  const out: MergeInfo[] = [];
  for await (const r of store.scanRecords({
    tenant: store.tenant,
    namespaces: [MERGES_NAMESPACE],
    where: { kind: MERGE_KIND },
  })) {
    const p = r.payload as unknown as MergeRecordPayload;
    out.push({
      id: p.id,
      at: p.at,
      ...(p.agentId ? { agentId: p.agentId } : {}),
      source: p.source,
      strategy: p.strategy,
      status: p.status,
      ...(p.undoneAt ? { undoneAt: p.undoneAt } : {}),
      counts: p.counts,
    });
  }
  return out.sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : a.id < b.id ? 1 : -1));
}
