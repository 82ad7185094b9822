import type { EntityMention } from '../contracts';
import { STOPWORDS } from '../text/stopwords';
import { MONTH_NAMES, timeMentions } from '../temporal/time-mentions';
import { dateEntity, entityKey } from './entity-key';

export interface ExtractEntitiesOptions {
  /** Who wrote or said the text (a conversation turn's speaker): a `person` entity of every turn they speak. */
  speaker?: string;
  /** When the text was written (epoch ms): relative times ("yesterday") resolve against it. Omitted: no dates. */
  at?: number;
  /**
   * Whether a key is a known entity: a single capitalised word that opens a sentence ("Luna sleeps
   * all day") is a name only when it is known (the store knows it, or another text names it
   * mid-sentence), since every sentence's first word is capitalised. Default: none is known.
   */
  isKnown?: (key: string) => boolean;
}

/**
 * Capitalised words that open a sentence without being names: greetings,
 * thanks, interjections (dropped wherever they stand in a run of capitals).
 * Any other first word of a sentence ("Researching adoption agencies", "Met
 * Jean") is a name only in capitals ("LGBTQ") or when known (`isKnown`).
 */
const OPENERS = new Set(
  (
    'hey hi hello dear thanks thank congrats congratulations wow whoa yeah yep yup nope oh ah aw aww ooh ok okay ' +
    'sure well sorry please yay hooray haha lol omg hmm um uh great awesome cool nice good glad right alright ' +
    'absolutely definitely totally exactly indeed'
  ).split(' '),
);
const WEEKDAYS = new Set(['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday']);
/** Titles before a name ("Dr. Patel"): part of no name themselves. */
const HONORIFICS = new Set(['mr', 'mrs', 'ms', 'dr', 'prof']);
/** Words before a name that make it a person or a place. */
const PERSON_TITLE = /\b(?:mr|mrs|ms|miss|dr|prof|professor|uncle|aunt|auntie|grandma|grandpa|coach)\.?\s+$/i;
const PLACE_BEFORE =
  /\b(?:in|at|from|to|near|into|visit|visited|visiting|around|across|toward|towards)\s+(?:the\s+)?$/i;
/** Small words names hold between capitalised ones ("Bank of America", "Lord of the Rings", "Ludwig van Beethoven"). */
const JOINERS = /^(?:of|the|de|du|da|la|le|van|von|der|den|del)$/i;
/** A run of capitalised words, joined by those small words. */
const NAME_RUN =
  /\p{Lu}[\p{L}\p{M}\p{N}'’&-]*(?:\s+(?:(?:of|the|de|du|da|la|le|van|von|der|den|del)\s+)*\p{Lu}[\p{L}\p{M}\p{N}'’&-]*)*/gu;
/** Quoted titles: "Charlotte's Web", “Little Women”, 'Embracing Identity'. */
const QUOTED = /["“]([^"”\n]{2,80})["”]|(?<=^|[\s(])['‘]([^'’\n]{2,80})['’](?=$|[\s.,!?;:)])/gu;
/**
 * Every QUOTED match opens with one of these: a double quote anywhere, or a single one where the
 * lookbehind lets it open (text start, space, bracket). A text without any skips that regex: most
 * texts, also the many whose apostrophes are inside words ("I'm"), on which it cost ~4 µs a turn.
 */
const QUOTE_OPENER = /["“]|(?:^|[\s(])['‘]/;

const isWord = (w: string) => /[\p{L}\p{N}]/u.test(w);
const bare = (w: string) => w.replace(/['’]s$/u, '').replace(/[-'’]+$/u, '');
/** A capitalised pronoun or its contraction ("I", "I'm", "I've") is no name. */
const isPronoun = (w: string) => /^I(?:['’]\p{L}+)?$/u.test(w);
/** Words that are dates or plain words, not names, when capitalised. */
function notAName(word: string): boolean {
  const w = bare(word).toLowerCase();
  return (
    isPronoun(word) ||
    STOPWORDS.has(w) ||
    OPENERS.has(w) ||
    HONORIFICS.has(w) ||
    WEEKDAYS.has(w.replace(/s$/, '')) || // "Tuesdays" too
    (MONTH_NAMES as readonly string[]).includes(w)
  );
}

/**
 * The entities a text mentions, found offline in one pass: the speaker,
 * quoted titles, runs of capitalised words (names of people, places, products,
 * projects; a name after "in", "at", "from", "to" is a place, one after "Dr."
 * or "Mr." a person), and the dates its time expressions resolve to against
 * `at`. Keyed by `entityKey` (dates by `dateEntity`), each key once.
 */
export function extractEntities(content: string, options: ExtractEntitiesOptions = {}): EntityMention[] {
  const { found, openers } = scanEntities(content, options);
  const isKnown = options.isKnown;
  if (isKnown) for (const o of openers) if (!found.has(o.key) && isKnown(o.key)) found.set(o.key, o);
  return [...found.values()];
}

/** Keeps the first mention of each non-empty key. */
function add(found: Map<string, EntityMention>, mention: EntityMention): void {
  if (mention.key !== '' && !found.has(mention.key)) found.set(mention.key, mention);
}

/**
 * `extractEntities` in two parts: the entities found for certain, and the
 * single capitalised words that open a sentence (names only if known).
 */
export function scanEntities(
  content: string,
  options: ExtractEntitiesOptions = {},
): { found: Map<string, EntityMention>; openers: EntityMention[] } {
  const found = new Map<string, EntityMention>();
  const openers: EntityMention[] = [];
  let text = content;
  const speaker = options.speaker?.trim();
  if (speaker) {
    add(found, { key: entityKey(speaker), name: speaker, kind: 'person', source: 'speaker' });
    if (text.startsWith(`${speaker}:`)) text = text.slice(speaker.length + 1);
  }
  // `exec` loops over the shared global patterns rather than `matchAll`, which copies the pattern and
  // makes an iterator per call (a bulk write scans every memory); lastIndex is reset before each loop.
  let quoted: [number, number][] | undefined;
  if (QUOTE_OPENER.test(text)) {
    QUOTED.lastIndex = 0;
    for (let m = QUOTED.exec(text); m !== null; m = QUOTED.exec(text)) {
      const title = (m[1] ?? m[2] ?? '').trim();
      if (!/\p{Lu}/u.test(title) || !isWord(title)) continue; // a quoted phrase in lower case is speech, not a title
      quoted ??= [];
      quoted.push([m.index, m.index + m[0].length]);
      add(found, { key: entityKey(title), name: title, kind: 'title', source: 'text' });
    }
  }
  NAME_RUN.lastIndex = 0;
  for (let m = NAME_RUN.exec(text); m !== null; m = NAME_RUN.exec(text)) {
    const at = m.index;
    if (quoted?.some(([s, e]) => at >= s && at < e)) continue;
    const before = text.slice(Math.max(0, at - 24), at);
    const titled = PERSON_TITLE.test(before);
    const kind = titled ? 'person' : PLACE_BEFORE.test(before) ? 'place' : 'name';
    let words = m[0].split(/\s+/);
    // A sentence's first word is capitalised anyway: openers ("Hey", "Thanks") go, and a first word that
    // is left ("Researching adoption agencies", "Met Jean") is a name only in capitals ("LGBTQ") or when
    // known; the words after it are names ("Jean").
    if (!titled && /(?:^|[.!?:;"“(\n]|\s[-–—])\s*$/u.test(before)) {
      while (words.length > 0 && notAName(words[0]!)) words = words.slice(1);
      if (words.length > 0 && words[0] === m[0].split(/\s+/)[0] && !/^\p{Lu}{2,}$/u.test(bare(words[0]!))) {
        const name = bare(words.join(' '));
        const key = entityKey(name);
        if (key !== '') openers.push({ key, name, kind, source: 'text' });
        words = words.slice(1);
        while (words.length > 0 && JOINERS.test(words[0]!)) words = words.slice(1);
      }
    }
    // Split where a word that is no name sits inside ("Hey Mel", "Luna and Oliver").
    const names: string[][] = [[]];
    for (const w of words) {
      if (!JOINERS.test(w) && notAName(w)) names.push([]);
      else names[names.length - 1]!.push(w);
    }
    for (const parts of names) {
      while (parts.length > 0 && JOINERS.test(parts[parts.length - 1]!)) parts.pop();
      while (parts.length > 0 && JOINERS.test(parts[0]!)) parts.shift();
      if (parts.length === 0) continue;
      const name = bare(parts.join(' '));
      add(found, { key: entityKey(name), name, kind, source: 'text' });
    }
  }
  if (options.at !== undefined) {
    for (const t of timeMentions(text, options.at)) {
      const { key, name } = dateEntity(t.start, t.unit);
      add(found, {
        key,
        name,
        kind: 'date',
        ...(t.text !== name.toLowerCase() ? { text: t.text } : {}),
        start: new Date(t.start).toISOString(),
        end: new Date(t.end).toISOString(),
        source: 'text',
      });
    }
  }
  return { found, openers };
}
