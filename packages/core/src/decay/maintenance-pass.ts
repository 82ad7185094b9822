import type { HistoryAction } from '../contracts';
import type { MemoryStore } from '../store/memory-store';
import { stableId } from '../util';

/**
 * How decay and compact make a pass over the whole store all or nothing.
 * With transactions (SQLite, Postgres, in-memory) the pass is one
 * transaction. Without (Qdrant) it writes as it goes and a kill leaves part of
 * it done; then each history entry is written before its change, under an id
 * derived from the memory and the change, so that the run that finishes the
 * pass writes an entry it already wrote again instead of adding a second one.
 */
export function maintenancePass(store: MemoryStore): {
  run<T>(pass: () => Promise<T>): Promise<T>;
  /** The history entry id to use (undefined: a new one). `at` is the prune instant. */
  entryId(memoryId: string, action: HistoryAction, at: string): string | undefined;
} {
  const atomic = store.backend.capabilities.transactions && typeof store.backend.transaction === 'function';
  return {
    run: (pass) => store.transaction(pass),
    entryId: (memoryId, action, at) => (atomic ? undefined : stableId('hist', memoryId, action, at)),
  };
}
