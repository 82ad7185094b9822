import { stem } from './stem';
import { ASCII_ONLY, tokenize } from './tokenize';

/** A Latin letter followed by combining marks (an accent written apart by NFD). */
const LATIN_MARKS = /(\p{Script=Latin})\p{M}+/gu;
/** Stems of recent words: stemming is most of tokenizing, and word frequencies are Zipfian. */
const stems = new Map<string, string>();
const MAX_STEMS = 100_000;

/**
 * The terms keyword search indexes and queries: core's `tokenize` (words
 * without stop words, stemmed) after the accents of Latin letters are
 * removed, so "cafe" finds "café" (as SQLite FTS5's `remove_diacritics`
 * tokenizer did). Marks of other scripts (Devanagari vowel signs, kana
 * voicing) carry meaning and stay.
 */
export function keywordTerms(text: string): string[] {
  // ASCII text has no marks to remove (nor a Unicode class to compile on a first call).
  if (ASCII_ONLY.test(text)) return tokenize(text, cachedStem);
  return tokenize(text.normalize('NFD').replace(LATIN_MARKS, '$1'), cachedStem);
}

function cachedStem(word: string): string {
  let s = stems.get(word);
  if (s === undefined) {
    if (stems.size >= MAX_STEMS) stems.clear();
    s = stem(word);
    stems.set(word, s);
  }
  return s;
}
