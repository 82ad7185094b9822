import type { AttributeValue } from './attribute-value';
import type { JsonObject } from './json-object';

/** One record's change in a `LoggedPatches` batch. */
export interface LoggedPatch {
  id: string;
  /**
   * Applied only while the stored attributes still have these values (a key
   * that is absent counts as null); otherwise the record is left alone and
   * gets no log record (another writer changed it since it was read).
   */
  expect: Record<string, AttributeValue>;
  /** Top-level payload keys set to these values; the rest of the stored payload stays (`patch` replaces it). */
  payload: JsonObject;
  /** Id of the log record written for this change (a new id). */
  logId: string;
}
