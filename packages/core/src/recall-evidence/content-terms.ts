import { STOPWORDS } from '../text';
import { ASCII_ONLY, countTerms } from '../text/tokenize';

/** The longest stop word: a longer word is a content term without a look-up. */
const LONGEST_STOPWORD = Math.max(...[...STOPWORDS].map((w) => w.length));

/** 0-9, A-Z, a-z. */
const isWordChar = (c: number) => (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || (c >= 65 && c <= 90);
/** A-Z, a-z. */
const isLetter = (c: number) => (c >= 97 && c <= 122) || (c >= 65 && c <= 90);

/**
 * `countTerms(text)` (words that are not stop words), the same count: ASCII text is scanned by
 * character code instead of lower-cased and split into an array of words first, and only words as
 * short as a stop word are cut out and looked up. Recall's turn prior counts the content terms of
 * each of its ~50 keyword hits: the split was ~85 µs a warm recall at 100k (issue 30).
 */
export function countContentTerms(text: string): number {
  if (!ASCII_ONLY.test(text)) return countTerms(text);
  // ASCII_WORD on the lower-cased text: [a-z0-9]+ and then, optionally, an apostrophe and letters
  // (the word is looked up without its apostrophe, as `words` gives it).
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
