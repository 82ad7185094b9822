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
  /**
   * Optional, read only by a backend whose `capabilities.loggedImplied` is
   * true (core leaves it out for any other): the log record each changed
   * record implied until now without it being stored (`rememberMany`'s
   * `create` history entry), written as a record in the same call, before the
   * change. A changed record whose attribute `marker` is `true` gets it, with
   * id its patch's `impliedId`, and its marker set to `false` by the change;
   * one whose patch has no `impliedId` is left alone like one whose `expect`
   * failed (never changed without its entry). Others get none. The record is
   * as `log` describes (same tenant, no text, context or vector), except that
   * `payload[keys.copy]` is the changed record's payload *before* the change,
   * and each `fromAttributes[k]` / `fromPayload[k]` names the changed record's
   * attribute / payload key whose value `attributes[k]` / `payload[k]` takes
   * (a key left out when that value is missing, null or the empty string). A
   * record with the entry's id already there is overwritten (the id is stable:
   * it is the same entry). Added to contract v1 as an option: a backend
   * without the capability ignores it and core writes these entries itself.
   */
  implied?: {
    marker: string;
    namespace: string;
    attributes: Record<string, AttributeValue>;
    payload: JsonObject;
    /** `id` is taken from `impliedId`, `ref` and `copy` as in `log.keys`. */
    keys: { id: string; ref: string; copy: string };
    fromAttributes: Record<string, string>;
    fromPayload: Record<string, string>;
  };
}
