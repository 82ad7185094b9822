import type { EntityInput, EntityMention, JsonObject } from '../contracts';
import { invalidInput } from '../errors';
import { timeMentions } from '../temporal/time-mentions';
import { dateEntity, ENTITY_KINDS, entityKey } from './entity-key';
import { scanEntities } from './extract-entities';

/** Longest entity name a caller may give, in characters. */
const MAX_ENTITY_NAME = 200;

/** `MemoryInput.entities`, checked: a list of `{ name, kind? }` with known kinds. */
export function validateEntities(value: unknown): EntityInput[] {
  if (!Array.isArray(value)) throw invalidInput('entities must be an array of { name, kind? }.');
  return value.map((item, i) => {
    const { name, kind } = (item ?? {}) as { name?: unknown; kind?: unknown };
    if (typeof name !== 'string' || name.trim() === '' || name.length > MAX_ENTITY_NAME) {
      throw invalidInput(`entities[${i}] needs a name: a non-empty string of at most ${MAX_ENTITY_NAME} characters.`);
    }
    if (kind !== undefined && !ENTITY_KINDS.includes(kind as EntityInput['kind'] & string)) {
      throw invalidInput(`entities[${i}].kind must be one of ${ENTITY_KINDS.join(', ')}, got ${JSON.stringify(kind)}.`);
    }
    return { name: name.trim(), ...(kind ? { kind: kind as EntityInput['kind'] } : {}) };
  });
}

/** What entity extraction reads of a memory. */
export interface EntitySource {
  content: string;
  metadata: JsonObject;
  occurredAt: string;
  /** Entities given with it (`MemoryInput.entities`, an extraction model's). */
  given?: readonly EntityInput[];
}

/** A given entity as a mention: a date resolves against the memory's time, any other is keyed by its name. */
function givenMention(input: EntityInput, at: number): EntityMention {
  const kind = input.kind ?? 'name';
  const time = kind === 'date' ? timeMentions(input.name, at)[0] : undefined;
  if (!time) return { key: entityKey(input.name), name: input.name, kind, source: 'model' };
  return {
    ...dateEntity(time.start, time.unit),
    kind,
    text: input.name,
    start: new Date(time.start).toISOString(),
    end: new Date(time.end).toISOString(),
    source: 'model',
  };
}

/**
 * The entities of a batch of memories: those given with each (by an
 * extraction model or the caller) first, then those the offline extractor
 * finds in its content, with the turn's speaker (`metadata.speaker`, as
 * `rememberConversation` writes it) and its dates resolved against
 * `occurredAt`. A single capitalised word that opens a sentence is kept when
 * the batch names it elsewhere or `known` (one lookup for the batch) says
 * the store already links it. Each key once per memory.
 */
export async function batchEntities(
  items: readonly EntitySource[],
  options: { extract: boolean; known: (keys: string[]) => Promise<ReadonlySet<string>> },
): Promise<EntityMention[][]> {
  const scanned = items.map((item) => {
    const at = Date.parse(item.occurredAt);
    const mentions = new Map<string, EntityMention>();
    for (const input of item.given ?? []) {
      const m = givenMention(input, at);
      if (m.key !== '' && !mentions.has(m.key)) mentions.set(m.key, m);
    }
    if (!options.extract) return { mentions, openers: [] as EntityMention[] };
    const speaker = typeof item.metadata.speaker === 'string' ? item.metadata.speaker : undefined;
    const { found, openers } = scanEntities(item.content, { ...(speaker ? { speaker } : {}), at });
    for (const [key, m] of found) if (!mentions.has(key)) mentions.set(key, m);
    return { mentions, openers };
  });
  const named = new Set(scanned.flatMap((s) => [...s.mentions.keys()]));
  const unsure = [...new Set(scanned.flatMap((s) => s.openers.map((o) => o.key)))].filter((k) => !named.has(k));
  const known = unsure.length > 0 ? await options.known(unsure) : new Set<string>();
  return scanned.map(({ mentions, openers }) => {
    for (const o of openers) if (!mentions.has(o.key) && (named.has(o.key) || known.has(o.key))) mentions.set(o.key, o);
    return [...mentions.values()];
  });
}
