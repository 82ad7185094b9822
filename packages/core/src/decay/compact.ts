import { invalidInput } from '../errors';
import type { MemoryStore } from '../store/memory-store';
import { KIND, recordToMemory } from '../store/codec';
import { maintenancePass } from './maintenance-pass';

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

/** Memories read again and deleted per write (keeps statements and request bodies small). */
const WRITE_BATCH = 1000;

/**
 * Deletes every pruned memory of every tenant for good; after this they can
 * no longer be restored. Each keeps its history, closed by a `compact` entry.
 * Superseded memories stay: they are the history of a fact that changed.
 * All in one transaction where the backend has them (else resumable: see
 * maintenancePass).
 */
export async function compactPruned(store: MemoryStore, options: CompactOptions = {}): Promise<CompactReport> {
  const started = performance.now();
  if (options === null || typeof options !== 'object') throw invalidInput('compact() takes { dryRun? }.');
  await store.init();
  const maintenance = maintenancePass(store);
  const pass = async () => {
    const ids: string[] = [];
    // Ids only (attributes scan: no text, payload or vector read); each batch is read whole below.
    for await (const record of store.scanAttributes(
      { tenant: null, where: { kind: KIND.memory, status: 'pruned' } },
      [],
    )) {
      ids.push(record.id);
    }
    if (options.dryRun) return ids.length;
    let removed = 0;
    for (let i = 0; i < ids.length; i += WRITE_BATCH) {
      // Read again: a memory restored since the scan stays.
      const fresh = await store.backend.get(ids.slice(i, i + WRITE_BATCH), { tenant: null, withVectors: false });
      const records = fresh.filter((r) => r.attributes.status === 'pruned');
      const batch = records.map(recordToMemory);
      // History first (a create entry its record still implies, then the compact entry): without
      // transactions, a pass cut short leaves no memory deleted without its entries.
      // (On SQLite, inserting into pages the deletes just freed, inside the same transaction, also costs
      // several times more than the other way round: measured.)
      await store.foldCreates(records);
      await store.recordHistory(
        batch.map((memory) => ({
          memory,
          action: 'compact' as const,
          detail: 'removed for good',
          id: maintenance.entryId(memory.id, 'compact', memory.prunedAt ?? ''),
        })),
      );
      await store.backend.delete(batch.map((m) => m.id));
      removed += batch.length;
    }
    return removed;
  };
  const removed = options.dryRun ? await pass() : await maintenance.run(pass);
  return { removed, durationMs: performance.now() - started, dryRun: options.dryRun === true };
}
