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
}
