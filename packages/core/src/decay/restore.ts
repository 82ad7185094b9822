import type { Memory } from '../contracts';
import { AgentMemoryError } from '../errors';
import type { MemoryStore } from '../store/memory-store';

/**
 * Brings a pruned or superseded memory back into recall, with a `restore`
 * history entry. Its decay clock restarts (`lastAccessedAt` = now): restoring
 * is an explicit use, and without it the next decay run would prune it again.
 * An active memory is returned unchanged.
 */
export async function restoreMemory(store: MemoryStore, id: string, nowMs: number): Promise<Memory> {
  const memory = await store.get(id);
  if (!memory) {
    throw new AgentMemoryError(
      'NOT_FOUND',
      `No memory with id ${id} in this scope: it was compacted or forgotten (history(id) still shows its last state), or the id or tenant is wrong.`,
      { details: { id } },
    );
  }
  if (!memory.prunedAt && !memory.supersededBy) return memory;
  const was = memory.supersededBy ? `superseded by ${memory.supersededBy}` : `pruned at ${memory.prunedAt}`;
  const now = new Date(nowMs).toISOString();
  const { prunedAt: _p, supersededBy: _s, ...rest } = memory;
  const restored: Memory = { ...rest, lastAccessedAt: now, updatedAt: now };
  await store.patchMemories([restored], 'restore', `was ${was}`);
  return restored;
}
