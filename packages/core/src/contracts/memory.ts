import type { EntityMention } from './entity-mention';
import type { JsonObject } from './json-object';
import type { MemoryType } from './memory-type';

/**
 * One long-term memory. Times are ISO 8601 strings (UTC).
 *
 * A memory is active unless `supersededBy` or `prunedAt` is set; inactive
 * memories leave recall but stay in the store (and in history) until compaction.
 */
export interface Memory {
  readonly specificationVersion: 'v1';
  id: string;
  content: string;
  type: MemoryType;
  /** 0..1, as written; decay is computed from it, never stored over it. */
  importance: number;
  tags: string[];
  /** The namespace the memory lives in (`user`, `feedback`, `project:<branch>`, `reference:<branch>`, ...). */
  namespace: string;
  /** Tenant scope (e.g. a user id); `''` when the store has no tenants. */
  tenant: string;
  createdAt: string;
  updatedAt: string;
  /** When what it records happened (event time); `createdAt` unless given. Recall's `after`/`before` filter on it. */
  occurredAt: string;
  lastAccessedAt: string;
  accessCount: number;
  /** sha256 of the normalised content; equal hashes in one namespace are one memory. */
  contentHash: string;
  supersededBy?: string;
  prunedAt?: string;
  /** Provenance. */
  agentId?: string;
  branch?: string;
  mergedFrom?: string;
  mergeId?: string;
  metadata: JsonObject;
  /** Text that helps find the memory (neighbouring turns, session date, source); never its content. */
  context?: string;
  /**
   * The people, places, titles, names and dates the memory mentions, found when
   * its content was written (docs/entities.md). Memories sharing an entity are
   * linked through it. Absent on memories written before entities existed.
   */
  entities?: EntityMention[];
}
