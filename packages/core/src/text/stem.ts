/**
 * The Porter (1980) stemmer, as SQLite FTS5's `porter` tokenizer applies it:
 * "containers" and "container" both become "contain", "deployed" and
 * "deploying" become "deploi". Using the same algorithm as FTS5 keeps the
 * in-memory BM25, the Qdrant sparse vectors, the hashing embedder and the
 * SQLite backend on the same terms. Expects a lower-case word.
 */
export function stem(word: string): string {
  // A longer word may be a slice of the text it came from: remembering it would keep that text alive.
  if (word.length > MEMO_WORD_LENGTH) return stemRest(stemInflection(word));
  let stemmed = memo.get(word);
  if (stemmed === undefined) {
    if (memo.size >= MEMO_SIZE) memo.clear();
    stemmed = stemRest(stemInflection(word));
    memo.set(word, stemmed);
  }
  return stemmed;
}

/**
 * Stems of recent words: a word's suffix rules cost ~0.7 us (about a third of an embedding by the
 * hashing embedder; the keyword indexes stem every word they index, queries too), and text repeats its
 * words. Bounded (about 2 MB when full), emptied when full.
 */
const memo = new Map<string, string>();
const MEMO_SIZE = 20_000;
/** V8 copies substrings shorter than 13 characters; longer ones may point into their parent string. */
const MEMO_WORD_LENGTH = 12;

/**
 * Porter's step 1 alone: plurals and -ed/-ing (with its -e and
 * double-consonant rules) and final -y, leaving derivational suffixes:
 * "projections" → `projection`, where the full stemmer gives `project`.
 */
export function stemInflection(word: string): string {
  let w = word;
  if (w.length <= 2) return w;
  // Step 1a: plurals.
  if (w.endsWith('sses') || w.endsWith('ies')) w = w.slice(0, -2);
  else if (w.endsWith('s') && !w.endsWith('ss')) w = w.slice(0, -1);
  // Step 1b: -eed, -ed, -ing.
  if (w.endsWith('eed')) {
    if (measure(w, w.length - 3) > 0) w = w.slice(0, -1);
  } else {
    const cut = w.endsWith('ed') ? 2 : w.endsWith('ing') ? 3 : 0;
    if (cut > 0 && hasVowel(w, w.length - cut)) {
      w = w.slice(0, -cut);
      if (w.endsWith('at') || w.endsWith('bl') || w.endsWith('iz')) w += 'e';
      else if (endsWithDoubleConsonant(w) && !'lsz'.includes(w[w.length - 1]!)) w = w.slice(0, -1);
      else if (measure(w, w.length) === 1 && endsCvc(w, w.length)) w += 'e';
    }
  }
  // Step 1c: y -> i after a vowel-bearing stem.
  if (w.endsWith('y') && hasVowel(w, w.length - 1)) w = `${w.slice(0, -1)}i`;
  return w;
}

/**
 * Porter's step 1 (`stemInflection`) giving every inflection of a word ending in a hissing sound
 * one key. Step 1 takes only the -s of "crashes", "fixes", "matches", "pushes", "indexes", leaving
 * `crashe` where "crashed" and "crashing" give `crash`, and it reads "cache" as `cache` but
 * "cached" and "caching" as `cach`. Here a key ending in -che, -she, -xe or -zze loses its -e
 * (no English word ends so but for "cache", "niche", "ache", whose other forms lose it too).
 * For indexes of their own (skill activation): `stem` and `stemInflection` are left as they are,
 * since their output is in stored vectors and keyword indexes.
 */
export function inflectionKey(word: string): string {
  const w = stemInflection(word);
  return SIBILANT_E.test(w) ? w.slice(0, -1) : w;
}

const SIBILANT_E = /(?:ch|sh|x|zz)e$/;

function stemRest(word: string): string {
  let w = word;
  if (w.length <= 2) return w;
  w = replaceSuffix(w, STEP2);
  w = replaceSuffix(w, STEP3);
  // Step 4: drop a suffix from a long enough stem.
  for (const suffix of STEP4[w.charCodeAt(w.length - 1)] ?? NONE) {
    if (!w.endsWith(suffix)) continue;
    const end = w.length - suffix.length;
    if (measure(w, end) > 1 && (suffix !== 'ion' || w[end - 1] === 's' || w[end - 1] === 't')) w = w.slice(0, end);
    break;
  }
  // Step 5: final -e and -ll.
  if (w.endsWith('e')) {
    const m = measure(w, w.length - 1);
    if (m > 1 || (m === 1 && !endsCvc(w, w.length - 1))) w = w.slice(0, -1);
  }
  if (w.endsWith('ll') && measure(w, w.length) > 1) w = w.slice(0, -1);
  return w;
}

/**
 * A step's suffixes (each with what replaces it) by the code of their last letter, each list in the
 * step's order: a word tries only those ending as it does, a few instead of all of them (the first
 * that matches is the same). A cold process stems every word it meets once, in V8's interpreter
 * (issue 30: the catch-up and the query of a first recall).
 */
function byLastLetter<T>(list: readonly T[], suffix: (item: T) => string): (T[] | undefined)[] {
  const by: (T[] | undefined)[] = [];
  for (const item of list) {
    const s = suffix(item);
    const last = s.charCodeAt(s.length - 1);
    by[last] = [...(by[last] ?? []), item];
  }
  return by;
}

const NONE: never[] = [];
/** `suffix:replacement` pairs of Porter's steps 2 and 3, tried in this order. */
const rules = (spec: string) =>
  byLastLetter(
    spec.split(' ').map((pair) => pair.split(':') as [string, string]),
    ([suffix]) => suffix,
  );
const STEP2 = rules(
  'ational:ate tional:tion enci:ence anci:ance izer:ize bli:ble alli:al entli:ent eli:e ousli:ous ization:ize ' +
    'ation:ate ator:ate alism:al iveness:ive fulness:ful ousness:ous aliti:al iviti:ive biliti:ble logi:log',
);
const STEP3 = rules('icate:ic ative: alize:al iciti:ic ical:ic ful: ness:');
const STEP4 = byLastLetter(
  'al ance ence er ic able ible ant ement ment ent ion ou ism ate iti ous ive ize'.split(' '),
  (s) => s,
);

/** Replaces the first matching suffix when the stem before it has m > 0. */
function replaceSuffix(w: string, step: readonly (readonly (readonly [string, string])[] | undefined)[]): string {
  for (const [suffix, replacement] of step[w.charCodeAt(w.length - 1)] ?? NONE) {
    if (!w.endsWith(suffix)) continue;
    const end = w.length - suffix.length;
    return measure(w, end) > 0 ? w.slice(0, end) + replacement : w;
  }
  return w;
}

function isVowel(w: string, i: number): boolean {
  const c = w[i]!;
  if (c === 'a' || c === 'e' || c === 'i' || c === 'o' || c === 'u') return true;
  return c === 'y' && i > 0 && !isVowel(w, i - 1);
}

/** Porter's m: the number of vowel-consonant sequences in w[0, end). */
function measure(w: string, end: number): number {
  let m = 0;
  let i = 0;
  while (i < end && !isVowel(w, i)) i++;
  while (i < end) {
    while (i < end && isVowel(w, i)) i++;
    if (i >= end) break;
    while (i < end && !isVowel(w, i)) i++;
    m++;
  }
  return m;
}

function hasVowel(w: string, end: number): boolean {
  for (let i = 0; i < end; i++) if (isVowel(w, i)) return true;
  return false;
}

function endsWithDoubleConsonant(w: string): boolean {
  const n = w.length;
  return n >= 2 && w[n - 1] === w[n - 2] && !isVowel(w, n - 1);
}

/** w[0, end) ends consonant-vowel-consonant, the last not w, x or y ("hop", not "snow"). */
function endsCvc(w: string, end: number): boolean {
  return (
    end >= 3 && !isVowel(w, end - 1) && isVowel(w, end - 2) && !isVowel(w, end - 3) && !'wxy'.includes(w[end - 1]!)
  );
}
