import type { EntityInput, EntityMention, JsonObject } from '../contracts';
import { invalidInput } from '../errors';
import { cleanLabel } from '../text/control-chars';
import { timeMentions } from '../temporal/time-mentions';
import { dateEntity, ENTITY_KINDS, entityKey } from './entity-key';
import { scanEntities } from './extract-entities';

/** Longest entity name a caller may give, in characters. */
const MAX_ENTITY_NAME = 200;

/** Most entities one memory may be given or carry. */
export const MAX_ENTITIES = 256;

/** `MemoryInput.entities`, checked: a list of `{ name, kind? }` with known kinds, names cleaned as labels. */
export function validateEntities(value: unknown): EntityInput[] {
  const refuse = (field: string, rule: string, message: string) => invalidInput(message, { field, rule });
  if (!Array.isArray(value)) throw refuse('entities', 'type', 'entities must be an array of { name, kind? }.');
  if (value.length > MAX_ENTITIES) {
    throw refuse('entities', 'max-count', `A memory may carry ${MAX_ENTITIES} entities; ${value.length} were given.`);
  }
  return value.map((item, i) => {
    const { name, kind } = (item ?? {}) as { name?: unknown; kind?: unknown };
    const clean = typeof name === 'string' && name.length <= MAX_ENTITY_NAME ? cleanLabel(name).trim() : '';
    if (clean === '') {
      throw refuse(
        `entities[${i}].name`,
        typeof name === 'string' && name.length > MAX_ENTITY_NAME ? 'max-length' : 'required',
        `entities[${i}] needs a name: a non-empty string of at most ${MAX_ENTITY_NAME} characters.`,
      );
    }
    if (kind !== undefined && !ENTITY_KINDS.includes(kind as EntityInput['kind'] & string)) {
      throw refuse(
        `entities[${i}].kind`,
        'one-of',
        `entities[${i}].kind must be one of ${ENTITY_KINDS.join(', ')}, got ${JSON.stringify(String(kind).slice(0, 40))}.`,
      );
    }
    return { name: clean, ...(kind ? { kind: kind as EntityInput['kind'] } : {}) };
  });
}

const DATE_KEY = /^date:\d{4}(?:-W\d{2}|-\d{2}(?:-\d{2})?)?$/;
const SOURCES: readonly EntityMention['source'][] = ['speaker', 'text', 'model'];

/**
 * A memory's entities as another store wrote them (a snapshot, an import), through the write policy:
 * names and words cleaned as labels, kinds and sources known, a name's key derived again from the
 * name (a crafted key cannot link a memory to an entity it does not name), a date's key of the date
 * form. `check(value, field)` validates a timestamp. Mentions without a key are dropped.
 */
export function validateStoredMentions(
  value: unknown,
  check: (value: unknown, field: string) => string,
): EntityMention[] {
  const refuse = (field: string, rule: string, message: string) => invalidInput(message, { field, rule });
  const given = validateEntities(Array.isArray(value) ? value.map((m) => ({ name: m?.name, kind: m?.kind })) : value);
  const out: EntityMention[] = [];
  given.forEach((input, i) => {
    const raw = (value as Record<string, unknown>[])[i]!;
    const source = raw.source as EntityMention['source'];
    if (!SOURCES.includes(source)) {
      throw refuse(`entities[${i}].source`, 'one-of', `entities[${i}].source must be one of ${SOURCES.join(', ')}.`);
    }
    const kind = input.kind ?? 'name';
    let key: string;
    if (kind === 'date') {
      if (typeof raw.key !== 'string' || !DATE_KEY.test(raw.key)) {
        throw refuse(`entities[${i}].key`, 'one-of', `entities[${i}].key of a date must look like date:2023-05-07.`);
      }
      key = raw.key;
    } else key = entityKey(input.name);
    if (key === '') return;
    const text = typeof raw.text === 'string' && raw.text.length <= MAX_ENTITY_NAME ? cleanLabel(raw.text) : undefined;
    if (raw.text !== undefined && text === undefined) {
      throw refuse(
        `entities[${i}].text`,
        'max-length',
        `entities[${i}].text must be a string of at most ${MAX_ENTITY_NAME} characters.`,
      );
    }
    out.push({
      key,
      name: input.name,
      kind,
      ...(text ? { text } : {}),
      ...(raw.start !== undefined ? { start: check(raw.start, `entities[${i}].start`) } : {}),
      ...(raw.end !== undefined ? { end: check(raw.end, `entities[${i}].end`) } : {}),
      source,
    });
  });
  return out;
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
 * The keys a batch names, and the sentence openers' keys none of its memories names (a loop in a
 * function of its own: in the async batchEntities it made V8 compile all of that, see ../store/remember-batch).
 */
function namedAndUnsure(
  scanned: readonly { mentions: Map<string, EntityMention>; openers: readonly EntityMention[] }[],
): { named: Set<string>; unsure: string[] } {
  // The loops in functions that start with them: what ran before a loop in a function's first call
  // had no type feedback yet, and V8's compiled code bailed out there (../store/remember-batch).
  const named = new Set<string>();
  const unsureKeys = new Set<string>();
  namedKeys(scanned, named);
  unsureOpeners(scanned, named, unsureKeys);
  return { named, unsure: [...unsureKeys] };
}

function namedKeys(scanned: readonly { mentions: Map<string, EntityMention> }[], named: Set<string>): void {
  for (let i = 0; i < scanned.length; i++) for (const key of scanned[i]!.mentions.keys()) named.add(key);
}

function unsureOpeners(
  scanned: readonly { openers: readonly EntityMention[] }[],
  named: ReadonlySet<string>,
  unsure: Set<string>,
): void {
  for (let i = 0; i < scanned.length; i++)
    for (const o of scanned[i]!.openers) if (!named.has(o.key)) unsure.add(o.key);
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
  // Per memory: no map of its own when nothing is given (the scan's map is used as it is), no
  // temporary arrays for the batch's sets; most memories of a bulk write name no entity at all.
  const noOpeners: EntityMention[] = [];
  // A batch's memories mostly share one time (rememberMany stamps them with one instant): parsed once.
  let lastTime: string | undefined;
  let lastAt = Number.NaN;
  const scanned = items.map((item) => {
    if (item.occurredAt !== lastTime) {
      lastTime = item.occurredAt;
      lastAt = Date.parse(lastTime);
    }
    const at = lastAt;
    const given = item.given;
    let mentions: Map<string, EntityMention> | undefined;
    if (given && given.length > 0) {
      mentions = new Map();
      for (const input of given) {
        const m = givenMention(input, at);
        if (m.key !== '' && !mentions.has(m.key)) mentions.set(m.key, m);
      }
    }
    if (!options.extract) return { mentions: mentions ?? new Map<string, EntityMention>(), openers: noOpeners };
    const speaker = typeof item.metadata.speaker === 'string' ? item.metadata.speaker : undefined;
    const { found, openers } = scanEntities(item.content, speaker ? { speaker, at } : { at });
    if (!mentions) return { mentions: found, openers };
    for (const [key, m] of found) if (!mentions.has(key)) mentions.set(key, m);
    return { mentions, openers };
  });
  const { named, unsure } = namedAndUnsure(scanned);
  const known = unsure.length > 0 ? await options.known(unsure) : new Set<string>();
  return scanned.map(({ mentions, openers }) => {
    for (const o of openers) if (!mentions.has(o.key) && (named.has(o.key) || known.has(o.key))) mentions.set(o.key, o);
    return mentions.size === 0 ? [] : [...mentions.values()];
  });
}
