import type { AttributeValue } from './attribute-value';
import type { JsonObject } from './json-object';

/**
 * What a backend stores: an id, its namespace and tenant, the text for keyword
 * search, an optional dense vector, flat filterable attributes and an opaque
 * JSON payload. A backend knows nothing of decay, skills or branches.
 */
export interface BackendRecord {
  /** Unique in the backend, whatever the namespace or tenant. */
  id: string;
  namespace: string;
  /** `''` for the default tenant. */
  tenant: string;
  /** Indexed for keyword search. */
  text: string;
  /**
   * Also indexed for keyword search, weighted below `text` (a match in the
   * context alone must not outrank a match in the text). Omitted: none.
   */
  context?: string;
  /**
   * Entity keys the record mentions (memory <-> entity links). A backend whose
   * capabilities say `links` indexes them for `linked` and `linkKeys` and
   * returns them with the record; others may drop them. Omitted: none.
   */
  links?: string[];
  /** Omitted for records that are never searched by similarity (history, manifests). */
  vector?: Float32Array;
  attributes: Record<string, AttributeValue>;
  payload: JsonObject;
}
