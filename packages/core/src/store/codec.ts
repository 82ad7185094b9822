import type { AttributeValue, BackendRecord, HistoryEntry, JsonObject, Memory } from '../contracts';
import { AgentMemoryError } from '../errors';
import { HISTORY_NAMESPACE } from '../scope';
import { stableId, toMillis } from '../util';

/** Record kinds core writes; backends only see them as the `kind` attribute. */
export const KIND = { memory: 'memory', skill: 'skill', history: 'history' } as const;

export type MemoryStatus = 'active' | 'superseded' | 'pruned';

export function statusOf(memory: Pick<Memory, 'supersededBy' | 'prunedAt'>): MemoryStatus {
  if (memory.supersededBy) return 'superseded';
  if (memory.prunedAt) return 'pruned';
  return 'active';
}

/**
 * Attributes recall and maintenance filter on; derived from the memory, never set separately. `at` is
 * a time already parsed (`atMillis`): a batch's writes share one, and `rememberMany` passes it so that
 * each record does not parse it again (issue 30, ingest-17).
 */
export function memoryAttributes(m: Memory, at?: string, atMillis?: number): BackendRecord['attributes'] {
  return {
    kind: KIND.memory,
    type: m.type,
    status: statusOf(m),
    contentHash: m.contentHash,
    importance: m.importance,
    createdAt: millisOf(m.createdAt, at, atMillis),
    updatedAt: millisOf(m.updatedAt, at, atMillis),
    lastAccessedAt: millisOf(m.lastAccessedAt, at, atMillis),
    occurredAt: millisOf(m.occurredAt ?? m.createdAt, at, atMillis),
    agentId: m.agentId ?? null,
    mergeId: m.mergeId ?? null,
  };
}

function millisOf(time: string, at: string | undefined, atMillis: number | undefined): number {
  return time === at && atMillis !== undefined ? atMillis : toMillis(time);
}

export function memoryToRecord(
  m: Memory,
  vector: Float32Array | undefined,
  attributes: BackendRecord['attributes'] = memoryAttributes(m),
): BackendRecord {
  const record: BackendRecord = {
    id: m.id,
    namespace: m.namespace,
    tenant: m.tenant,
    text: m.content,
    attributes,
    payload: m as unknown as JsonObject,
  };
  if (m.context) record.context = m.context;
  if (m.entities && m.entities.length > 0) record.links = linkKeys(m.entities);
  if (vector) record.vector = vector;
  return record;
}

/** The entity keys a memory is linked by: its entities' keys, each once. */
export function linkKeys(entities: readonly { key: string }[]): string[] {
  return [...new Set(entities.map((e) => e.key).filter((k) => k !== ''))];
}

export function recordToMemory(r: BackendRecord): Memory {
  const p = r.payload as unknown as Memory;
  if (r.attributes.kind !== KIND.memory || typeof p?.content !== 'string') {
    throw new AgentMemoryError('NOT_FOUND', `Record ${r.id} is not a memory.`);
  }
  // The record's own id/namespace/tenant win over the payload's copy.
  return withMemoryDefaults({ ...p, id: r.id, namespace: r.namespace, tenant: r.tenant });
}

/**
 * A stored memory with what older payloads may lack: memories written before
 * event time existed happened when they were created. History entries get it
 * too, whether the store or a backend (a prune copied in SQL) wrote the copy.
 */
function withMemoryDefaults(p: Memory): Memory {
  return { ...p, tags: [...(p.tags ?? [])], metadata: p.metadata ?? {}, occurredAt: p.occurredAt ?? p.createdAt };
}

/**
 * The attribute that marks a memory `rememberMany` created without writing its `create` history
 * entry: the entry is implied by the record (see `impliedCreate`) until the memory first changes,
 * when every write path folds it into a real history row first (`MemoryStore.foldCreates`) and its
 * own write drops the marker. `memoryToRecord` never sets it, so any rewrite of the record drops it;
 * a patch sets it to `false` (`withCreateFolded`). Only `true` counts. Decay's prune is the one
 * change that keeps it: it only sets `prunedAt` (and the status derived from it), so the record
 * without `prunedAt` is still the memory as created, and a first prune of memories never changed
 * since their bulk ingest writes no create rows (docs/sqlite.md, decay).
 */
export const HISTORY_PENDING = 'historyPending';

/** Whether a record is a memory whose `create` entry is implied by the record (no history row yet). */
export function isHistoryPending(r: Pick<BackendRecord, 'attributes'>): boolean {
  return r.attributes[HISTORY_PENDING] === true && r.attributes.kind === KIND.memory;
}

/**
 * `attributes` (changed in place) with the marker set to false when `folded`: what a patch of a
 * memory writes once its implied `create` entry is a row (`MemoryStore.foldCreates` returns which).
 * The one place the marker is unset by a patch.
 */
export function withCreateFolded(
  attributes: Record<string, AttributeValue>,
  folded: boolean,
): Record<string, AttributeValue> {
  if (folded) attributes[HISTORY_PENDING] = false;
  return attributes;
}

/** The id of a memory's implied `create` entry, and of the row it becomes. */
export function createEntryId(memoryId: string): string {
  return stableId('hist', memoryId);
}

/**
 * The `create` entry a marked memory record implies: the entry `rememberMany` wrote eagerly before
 * (same keys in the same order), with a stable id, `at` = createdAt and the memory as stored without
 * `prunedAt`, which is the memory as created (every change but a prune folds the entry first).
 */
export function impliedCreate(r: BackendRecord): HistoryEntry {
  // A prune keeps the marker (see HISTORY_PENDING): the memory as created is the record without it.
  const { prunedAt: _, ...memory } = recordToMemory(r);
  return {
    id: createEntryId(memory.id),
    memoryId: memory.id,
    action: 'create',
    at: memory.createdAt,
    memory,
    ...(memory.agentId ? { agentId: memory.agentId } : {}),
  };
}

export function historyToRecord(entry: HistoryEntry, tenant: string): BackendRecord {
  return {
    id: entry.id,
    namespace: HISTORY_NAMESPACE,
    tenant,
    text: '',
    attributes: { kind: KIND.history, memoryId: entry.memoryId, action: entry.action, at: toMillis(entry.at) },
    payload: entry as unknown as JsonObject,
  };
}

export function recordToHistory(r: BackendRecord): HistoryEntry {
  const entry = r.payload as unknown as HistoryEntry;
  return entry.memory ? { ...entry, memory: withMemoryDefaults(entry.memory) } : entry;
}
