import type { EntityKind } from './entity-kind';

/**
 * An entity a memory mentions, found when it was written (`Memory.entities`).
 * Memories that share a `key` are linked through that entity.
 */
export interface EntityMention {
  /**
   * The entity's identity in the store: the name's keyword terms (lower case,
   * stemmed, stop words dropped: "Charlotte's Web" -> `charlott web`), or for a
   * date `date:2023-05-07`, `date:2023-W18`, `date:2023-05` or `date:2023`.
   */
  key: string;
  /** As written ("Caroline", "Charlotte's Web"); for a date, the date it resolves to ("7 May 2023"). */
  name: string;
  kind: EntityKind;
  /** A date's words as written, when they differ from `name` ("yesterday", "last week"). */
  text?: string;
  /** A date's span: start (inclusive) and end (exclusive), ISO 8601. */
  start?: string;
  end?: string;
  /** Who found it: `speaker` (the turn's speaker), `text` (the offline extractor) or `model` (given with the input). */
  source: 'speaker' | 'text' | 'model';
}
