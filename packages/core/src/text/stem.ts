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
      else if (endsWithDoubleConsonant(w) && !endsInLsz(w)) w = w.slice(0, -1);
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
  w = step4(w);
  // Step 5: final -e and -ll.
  if (w.charCodeAt(w.length - 1) === E) {
    const m = measure(w, w.length - 1);
    if (m > 1 || (m === 1 && !endsCvc(w, w.length - 1))) w = w.slice(0, -1);
  }
  if (w.endsWith('ll') && measure(w, w.length) > 1) w = w.slice(0, -1);
  return w;
}

// The steps' helpers read character codes in indexed loops and call no function recursively: this
// code is compiled by V8's optimizing compiler in every fresh process that indexes text (each word is
// stemmed once, thousands of them), and inlined into its callers' compiles. Recursive `isVowel` calls
// and array destructuring in for-of loops made those compiles large (issue 30: the stemmer was ~15% of
// a fresh process's bulk-write compile work, on V8's other threads); the stems are the same.
const A = 97;
const E = 101;
const I = 105;
const O = 111;
const U = 117;
const W = 119;
const X = 120;
const Y = 121;

/**
 * A step's suffixes by the code of their last letter (see `byLastLetter`), as parallel arrays: each
 * list's suffixes and what replaces each.
 */
interface SuffixRules {
  suffixes: (string[] | undefined)[];
  replacements: (string[] | undefined)[];
}

/** Step 4: drops the first suffix the word ends with from a long enough stem. */
function step4(w: string): string {
  const list = STEP4[w.charCodeAt(w.length - 1)];
  if (list === undefined) return w;
  for (let k = 0; k < list.length; k++) {
    const suffix = list[k]!;
    if (!w.endsWith(suffix)) continue;
    const end = w.length - suffix.length;
    if (measure(w, end) > 1 && (suffix !== 'ion' || w.charCodeAt(end - 1) === 115 || w.charCodeAt(end - 1) === 116))
      return w.slice(0, end);
    return w;
  }
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

/** `suffix:replacement` pairs of Porter's steps 2 and 3, tried in this order. */
const rules = (spec: string): SuffixRules => {
  const by = byLastLetter(
    spec.split(' ').map((pair) => pair.split(':') as [string, string]),
    ([suffix]) => suffix,
  );
  return {
    suffixes: Array.from(by, (list) => list?.map(([suffix]) => suffix)),
    replacements: Array.from(by, (list) => list?.map(([, replacement]) => replacement)),
  };
};
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
function replaceSuffix(w: string, step: SuffixRules): string {
  const last = w.charCodeAt(w.length - 1);
  const suffixes = step.suffixes[last];
  if (suffixes === undefined) return w;
  for (let k = 0; k < suffixes.length; k++) {
    const suffix = suffixes[k]!;
    if (!w.endsWith(suffix)) continue;
    const end = w.length - suffix.length;
    return measure(w, end) > 0 ? w.slice(0, end) + step.replacements[last]![k]! : w;
  }
  return w;
}

function isAeiou(c: number): boolean {
  return c === A || c === E || c === I || c === O || c === U;
}

/**
 * Whether w[i] is a vowel: a, e, i, o, u, or a y after a consonant (a y is a consonant at the start or
 * after a vowel). A run of y's alternates from the letter before it, so it is read back to that
 * letter instead of recursively.
 */
function isVowel(w: string, i: number): boolean {
  const c = w.charCodeAt(i);
  if (c !== Y) return isAeiou(c);
  let j = i;
  while (j > 0 && w.charCodeAt(j - 1) === Y) j--;
  // The letter before the run (none: as a vowel, so the run's first y is a consonant) and the run's alternation.
  const before = j === 0 || isAeiou(w.charCodeAt(j - 1));
  return ((i - j) & 1) === 0 ? !before : before;
}

/** Porter's m: the number of vowel-consonant sequences in w[0, end) (a vowel followed by a consonant). */
function measure(w: string, end: number): number {
  let m = 0;
  let vowel = false; // w[i - 1] is a vowel
  for (let i = 0; i < end; i++) {
    const c = w.charCodeAt(i);
    const v: boolean = c === Y ? i > 0 && !vowel : isAeiou(c);
    if (vowel && !v) m++;
    vowel = v;
  }
  return m;
}

function hasVowel(w: string, end: number): boolean {
  let vowel = false;
  for (let i = 0; i < end; i++) {
    const c = w.charCodeAt(i);
    vowel = c === Y ? i > 0 && !vowel : isAeiou(c);
    if (vowel) return true;
  }
  return false;
}

/** The word ends in l, s or z. */
function endsInLsz(w: string): boolean {
  const c = w.charCodeAt(w.length - 1);
  return c === 108 || c === 115 || c === 122;
}

function endsWithDoubleConsonant(w: string): boolean {
  const n = w.length;
  return n >= 2 && w.charCodeAt(n - 1) === w.charCodeAt(n - 2) && !isVowel(w, n - 1);
}

/** w[0, end) ends consonant-vowel-consonant, the last not w, x or y ("hop", not "snow"). */
function endsCvc(w: string, end: number): boolean {
  if (end < 3) return false;
  const last = w.charCodeAt(end - 1);
  return last !== W && last !== X && last !== Y && !isVowel(w, end - 1) && isVowel(w, end - 2) && !isVowel(w, end - 3);
}
