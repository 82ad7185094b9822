import type { AttributeValue } from './attribute-value';
import type { JsonObject } from './json-object';
import type { LoggedPatch } from './logged-patch';

/**
 * The argument of the optional `MemoryBackend.patchLogged`: compare-and-set
 * patches of many records that set the same attributes and some payload keys
 * (without sending whole payloads), each with a log record (a history entry)
 * holding a copy of the record's new payload. What decay's prune does to tens
 * of thousands of records at once.
 */
export interface LoggedPatches {
  /** Distinct ids: an id given twice is refused with `INVALID_INPUT`, and nothing is written. */
  patches: readonly LoggedPatch[];
  /** Set on every changed record, merged key by key (as `patch`). */
  attributes: Record<string, AttributeValue>;
  /**
   * The log record of each change, in the changed record's tenant, without
   * text, context or vector: `attributes` and `payload` as given, except that
   * `payload[keys.id]` is the patch's `logId`, `attributes[keys.ref]` and
   * `payload[keys.ref]` the changed record's id, and `payload[keys.copy]` its
   * new payload (the change applied).
   */
  log: {
    namespace: string;
    attributes: Record<string, AttributeValue>;
    payload: JsonObject;
    keys: { id: string; ref: string; copy: string };
  };
}
