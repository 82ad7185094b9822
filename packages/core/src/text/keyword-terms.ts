import { stem } from './stem';
import { STOPWORDS } from './stopwords';
import { ASCII_ONLY, ASCII_WORD, tokenize } from './tokenize';

/** A Latin letter followed by combining marks (an accent written apart by NFD). */
const LATIN_MARKS = /(\p{Script=Latin})\p{M}+/gu;
/** Stems of recent words: stemming is most of tokenizing, and word frequencies are Zipfian. */
const stems = new Map<string, string>();
const MAX_STEMS = 100_000;
/**
 * The term of recent ASCII words as matched (lower-cased, an apostrophe kept), null for a stop word:
 * one lookup a word instead of the apostrophe's removal, the stop-word set and the stems' map.
 */
const asciiTerms = new Map<string, string | null>();

/**
 * The terms keyword search indexes and queries: core's `tokenize` (words
 * without stop words, stemmed) after the accents of Latin letters are
 * removed, so "cafe" finds "café" (as SQLite FTS5's `remove_diacritics`
 * tokenizer did). Marks of other scripts (Devanagari vowel signs, kana
 * voicing) carry meaning and stay.
 */
export function keywordTerms(text: string): string[] {
  // ASCII text has no marks to remove (nor a Unicode class to compile on a first call).
  if (ASCII_ONLY.test(text)) return asciiKeywordTerms(text);
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

/** `tokenize(text, cachedStem)` of ASCII text (no NFKC change, no marks): the same terms, in order. */
function asciiKeywordTerms(text: string): string[] {
  const found = text.toLowerCase().match(ASCII_WORD);
  const out: string[] = [];
  if (!found) return out;
  for (let i = 0; i < found.length; i++) {
    const term = asciiWordTerm(found[i]!);
    if (term !== null) out.push(term);
  }
  return out;
}

/**
 * The term of one ASCII word as `ASCII_WORD` matches it in lower-cased text (an apostrophe kept), null
 * for a stop word: `keywordTerms(word)[0] ?? null` without the regex and the array (the keyword
 * index's word table asks it once a distinct word).
 */
export function asciiWordTerm(w: string): string | null {
  let term = asciiTerms.get(w);
  if (term === undefined) {
    const word = w.includes("'") ? w.replaceAll("'", '') : w;
    term = STOPWORDS.has(word) ? null : stem(word);
    if (asciiTerms.size >= MAX_STEMS) asciiTerms.clear();
    asciiTerms.set(w, term);
  }
  return term;
}
