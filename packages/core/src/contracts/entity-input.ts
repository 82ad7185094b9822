import type { EntityKind } from './entity-kind';

/** An entity a caller (or an extraction model) names for a memory it writes (`MemoryInput.entities`). */
export interface EntityInput {
  name: string;
  /** Default `name`. */
  kind?: EntityKind;
}
