import type { Memory } from './memory';

export type HistoryAction =
  | 'create'
  | 'update'
  | 'supersede'
  | 'prune'
  | 'restore'
  | 'forget'
  | 'merge_import'
  | 'undo'
  | 'compact';

/** One change to one memory, with the memory as it was after the change (before, for `forget`). */
export interface HistoryEntry {
  id: string;
  memoryId: string;
  action: HistoryAction;
  at: string;
  agentId?: string;
  /** Free-form context: merge id, superseding id, reason. */
  detail?: string;
  memory: Memory;
}
