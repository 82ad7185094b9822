import type { EntityInput } from './entity-input';
import type { JsonObject } from './json-object';
import type { MemoryType } from './memory-type';

/** What a caller gives to `remember`. Everything else is derived. */
export interface MemoryInput {
  content: string;
  type: MemoryType;
  /** 0..1, default 0.5. */
  importance?: number;
  tags?: string[];
  metadata?: JsonObject;
  /** Use this id instead of a generated one (imports, tests). */
  id?: string;
  /** Write into this namespace instead of the one derived from type and branch (swarm/team scopes). */
  namespace?: string;
  /**
   * When what the memory records happened (ISO 8601, or a Date): the time of a chat turn, a
   * note, an imported record. Default: now. Recall's `after` / `before` filter on it.
   */
  occurredAt?: string | Date;
  /**
   * Text that helps find the memory but is not its content: the neighbouring turns of a chat,
   * the session's date and title, the document or task it came from. Keyword search weighs it
   * below the content; it is never shown in the prompt block and never part of the content hash,
   * the duplicate check or the conflict check.
   */
  context?: string;
  /**
   * Entities the memory is about, as an extraction model or the caller names
   * them; added to those the offline extractor finds in the content.
   */
  entities?: EntityInput[];
}
