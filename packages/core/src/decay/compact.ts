import { invalidInput } from '../errors';
import type { MemoryStore } from '../store/memory-store';
import { KIND, recordToMemory } from '../store/codec';

export interface CompactOptions {
  /** Count what would be removed, remove nothing. */
  dryRun?: boolean;
}

export interface CompactReport {
  /** Pruned memories deleted for good (or that would be, in a dry run). */
  removed: number;
  durationMs: number;
  dryRun: boolean;
}

const WRITE_BATCH = 1000;

/**
 * Deletes every pruned memory of every tenant for good; after this they can
 * no longer be restored. Each keeps its history, closed by a `compact` entry.
 * Superseded memories stay: they are the history of a fact that changed.
 */
export async function compactPruned(store: MemoryStore, options: CompactOptions = {}): Promise<CompactReport> {
  const started = performance.now();
  if (options === null || typeof options !== 'object') throw invalidInput('compact() takes { dryRun? }.');
  await store.init();
  const ids: string[] = [];
  // Ids only (attributes scan: no text, payload or vector read); each batch is read whole below.
  for await (const record of store.scanAttributes(
    { tenant: null, where: { kind: KIND.memory, status: 'pruned' } },
    [],
  )) {
    ids.push(record.id);
  }
  let removed = options.dryRun ? ids.length : 0;
  if (!options.dryRun) {
    for (let i = 0; i < ids.length; i += WRITE_BATCH) {
      await store.transaction(async () => {
        // Read again inside the transaction: a memory restored since the scan stays.
        const fresh = await store.backend.get(ids.slice(i, i + WRITE_BATCH), { tenant: null, withVectors: false });
        const batch = fresh.filter((r) => r.attributes.status === 'pruned').map(recordToMemory);
        // History first: on SQLite, inserting into pages the deletes just freed (inside the same
        // transaction) costs several times more than the other way round (measured).
        await store.recordHistory(
          batch.map((memory) => ({ memory, action: 'compact' as const, detail: 'removed for good' })),
        );
        await store.backend.delete(batch.map((m) => m.id));
        removed += batch.length;
      });
    }
  }
  return { removed, durationMs: performance.now() - started, dryRun: options.dryRun === true };
}
