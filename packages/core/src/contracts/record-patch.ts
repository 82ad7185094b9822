import type { AttributeValue } from './attribute-value';
import type { JsonObject } from './json-object';

/**
 * A cheap partial update that leaves text and vector alone (reinforcement,
 * decay, supersede). `attributes` are merged key by key; `payload` replaces
 * the stored payload when given.
 */
export interface RecordPatch {
  id: string;
  attributes?: Record<string, AttributeValue>;
  payload?: JsonObject;
}
