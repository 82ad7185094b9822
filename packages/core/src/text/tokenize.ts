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

/** How many terms `tokenize` gives: its count does not depend on the stemmer, so no word is stemmed. */
export function countTerms(text: string): number {
  let count = 0;
  for (const w of words(text)) if (!STOPWORDS.has(w)) count++;
  return count;
}
