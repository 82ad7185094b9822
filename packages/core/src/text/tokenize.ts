import { STOPWORDS } from './stopwords';
import { stem } from './stem';

const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}]+)?/gu;
/**
 * WORD on ASCII text, which NFKC leaves as it is: the same words, without compiling WORD's Unicode
 * classes (~0.5 ms of a new process's first recall).
 */
export const ASCII_WORD = /[a-z0-9]+(?:'[a-z]+)?/g;
/** Text of ASCII characters only. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the range is every ASCII character, controls too
export const ASCII_ONLY = /^[\x00-\x7f]*$/;

/** Lower-cased word tokens, apostrophes kept inside words ("don't"). */
export function words(text: string): string[] {
  const found = ASCII_ONLY.test(text)
    ? text.toLowerCase().match(ASCII_WORD)
    : text.normalize('NFKC').toLowerCase().match(WORD);
  if (!found) return [];
  // In place, and only the words with an apostrophe: a copy of every word list and a replace a word
  // were a fifth of tokenising a bulk write's texts.
  for (let i = 0; i < found.length; i++) {
    const w = found[i]!;
    if (w.includes("'") || w.includes('’')) found[i] = w.replace(/['’]/g, '');
  }
  return found;
}

/**
 * The terms keyword relevance is computed on: words without stop words,
 * stemmed. The Qdrant sparse vectors, Postgres' term table and the hashing
 * embedder use it as is; the in-memory and SQLite keyword index first remove
 * the accents of Latin letters (`keywordTerms`), so only they find "café" by
 * "cafe".
 * `reduce` replaces the stemmer for an index of its own (skill activation).
 */
export function tokenize(text: string, reduce: (word: string) => string = stem): string[] {
  const out: string[] = [];
  for (const w of words(text)) {
    if (STOPWORDS.has(w)) continue;
    out.push(reduce(w));
  }
  return out;
}

/**
 * How many terms `tokenize` gives: its count does not depend on the stemmer, so no word is stemmed.
 * ASCII text is scanned by character code (ASCII_WORD's words) instead of lower-cased and split into an
 * array, and only a word as short as a stop word is cut out and looked up: recall's turn prior counts
 * the terms of each of its ~50 keyword hits, and the split was ~85 µs a warm recall at 100k (issue 30).
 */
export function countTerms(text: string): number {
  if (ASCII_ONLY.test(text)) return countAsciiTerms(text);
  let count = 0;
  for (const w of words(text)) if (!STOPWORDS.has(w)) count++;
  return count;
}

/** The longest stop word: a longer word is a term without a look-up. */
const LONGEST_STOPWORD = Math.max(...[...STOPWORDS].map((w) => w.length));

/** 0-9, A-Z, a-z. */
const isWordChar = (c: number) => (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || (c >= 65 && c <= 90);
/** A-Z, a-z. */
const isLetter = (c: number) => (c >= 97 && c <= 122) || (c >= 65 && c <= 90);

/** countTerms of ASCII text: ASCII_WORD's words of the lower-cased text that are not stop words. */
function countAsciiTerms(text: string): number {
  // ASCII_WORD: [a-z0-9]+ and then, optionally, an apostrophe and letters (the word is looked up
  // without its apostrophe, as `words` gives it).
  const n = text.length;
  let count = 0;
  let i = 0;
  while (i < n) {
    if (!isWordChar(text.charCodeAt(i))) {
      i++;
      continue;
    }
    const start = i;
    i++;
    while (i < n && isWordChar(text.charCodeAt(i))) i++;
    const end = i;
    if (i + 1 < n && text.charCodeAt(i) === 39 && isLetter(text.charCodeAt(i + 1))) {
      i += 2;
      while (i < n && isLetter(text.charCodeAt(i))) i++;
    }
    const apostrophe = i > end;
    if (i - start - (apostrophe ? 1 : 0) > LONGEST_STOPWORD) {
      count++;
      continue;
    }
    const word = apostrophe ? text.slice(start, end) + text.slice(end + 1, i) : text.slice(start, end);
    if (!STOPWORDS.has(word.toLowerCase())) count++;
  }
  return count;
}
