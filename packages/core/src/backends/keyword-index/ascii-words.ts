// The keyword index's tokenizer for ASCII text: `keywordTerms` word by word, straight to term ids.

import { asciiWordTerm } from '../../text/keyword-terms';

/** Words held before the table starts again (a cache: vocabularies are Zipfian, as the stems' cache assumes). */
const MAX_WORDS = 1 << 17;
/** A word that gives no term (a stop word). */
const NONE = -1;
const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/**
 * The term ids of ASCII text's words, as `keywordTerms` gives the terms (the same terms, in order, for
 * text `ASCII_ONLY` accepts): its words (`ASCII_WORD` on the lower-cased text) found by a scan of the
 * characters, each looked up in a table of the words seen (lower-cased as matched, an apostrophe kept)
 * by a hash computed during the scan. A word seen before costs no lower-cased copy of the text, no
 * match array, no substring and no map lookup of its term: those were most of a bulk write's keyword
 * indexing (issue 30). A new word's term is `keywordTerms` of the word alone (the word is a whole
 * match of `ASCII_WORD`, so it gives that word's term or none), its id `idOf(term)`: ids must stay
 * valid for as long as the table is used.
 */
export class AsciiWords {
  /**
   * Open addressing by hash: each entry's word ('': empty, no word is), its hash and its term id (NONE:
   * no term). Small at first (as `ids`, sized by the first scan) so that they first grow in a bulk
   * write's first documents, before V8 compiles the scan: a first growth after that threw the compile
   * away (a field stored once is compiled as a constant) or deoptimized it (a branch never run has no
   * type feedback), in a fresh process's first bulk write (issue 30: 20-90 ms of a compiler thread's
   * work lost).
   */
  private words: string[] = new Array<string>(64).fill('');
  private hashes = new Int32Array(64);
  private values = new Int32Array(64);
  private count = 0;
  /** The term ids `scan` found, from the position it was given. */
  ids = new Int32Array(16);

  constructor(private readonly idOf: (term: string) => number) {}

  /**
   * Writes the term ids of `text` into `ids` from `at`; returns the position after the last one, or -1
   * when the text holds a character past ASCII (then `keywordTerms` gives its terms). That test is part
   * of the scan, which reads every character anyway (a separate `ASCII_ONLY` test read them twice: ~5%
   * of a bulk write's keyword indexing, issue 30). It stops at the first such character before it looks
   * up the word that character ends: every word it looked up (and gave an id when new) is then whole
   * ASCII text between ASCII separators, whose terms are the first of the text's terms either way, in
   * the same order, so ids are taken as `keywordTerms` would have taken them.
   */
  scan(text: string, at: number): number {
    let out = at;
    const n = text.length;
    // Room for every term first: n characters hold at most (n + 1) / 2 words (a word is followed by a
    // character of no word, or ends in an apostrophe's letters: two characters a word but the last).
    // So the first text grows `ids`, and a later growth runs compiled code that has seen one (issue 30).
    if (at + ((n + 1) >> 1) > this.ids.length) this.growIds(at + ((n + 1) >> 1));
    let i = 0;
    while (i < n) {
      let c = text.charCodeAt(i);
      if (c >= 65 && c <= 90) c += 32;
      // [a-z0-9]
      if (!((c >= 97 && c <= 122) || (c >= 48 && c <= 57))) {
        if (c > 127) return -1;
        i++;
        continue;
      }
      const start = i;
      let h = FNV_OFFSET;
      for (;;) {
        h = Math.imul(h ^ c, FNV_PRIME);
        if (++i === n) break;
        c = text.charCodeAt(i);
        if (c >= 65 && c <= 90) c += 32;
        if (!((c >= 97 && c <= 122) || (c >= 48 && c <= 57))) break;
      }
      if (c > 127) return -1; // a word ended by a character past ASCII ("cafe\u0301", "it’s")
      // (?:'[a-z]+)? : an apostrophe only when a letter follows it
      if (i + 1 < n && text.charCodeAt(i) === 39) {
        let d = text.charCodeAt(i + 1);
        if (d >= 65 && d <= 90) d += 32;
        if (d > 127) return -1; // "don'\u00e9"
        if (d >= 97 && d <= 122) {
          h = Math.imul(h ^ 39, FNV_PRIME);
          i++;
          for (;;) {
            h = Math.imul(h ^ d, FNV_PRIME);
            if (++i === n) break;
            d = text.charCodeAt(i);
            if (d >= 65 && d <= 90) d += 32;
            if (!(d >= 97 && d <= 122)) break;
          }
          if (d > 127) return -1;
        }
      }
      const id = this.lookup(text, start, i, h | 0);
      if (id !== NONE) this.ids[out++] = id;
    }
    return out;
  }

  private growIds(size: number): void {
    const grown = new Int32Array(Math.max(size, 2 * this.ids.length));
    grown.set(this.ids);
    this.ids = grown;
  }

  /** The term id of the word text[start, end) (lower-cased), added when new. */
  private lookup(text: string, start: number, end: number, h: number): number {
    const length = end - start;
    const mask = this.hashes.length - 1;
    let e = h & mask;
    for (;;) {
      const word = this.words[e]!;
      if (word.length === 0) break;
      if (this.hashes[e] === h && word.length === length && sameWord(word, text, start)) return this.values[e]!;
      e = (e + 1) & mask;
    }
    return this.added(text, start, end, h);
  }

  /**
   * A word not in the table: its term (`keywordTerms` of it) and id, added. Apart from `lookup` so the
   * optimized scan does not hold it (called once a distinct word): its allocations (a new term's
   * postings) made the scan's optimized code deoptimize when their pretenuring changed (issue 30).
   */
  private added(text: string, start: number, end: number, h: number): number {
    const word = text.slice(start, end).toLowerCase();
    // A whole match of ASCII_WORD: its term is keywordTerms(word)'s one term, or none.
    const term = asciiWordTerm(word);
    const id = term === null ? NONE : this.idOf(term);
    if (this.count >= MAX_WORDS) {
      this.clear(this.hashes.length);
      return this.add(word, h, id);
    }
    if (2 * (this.count + 1) > this.hashes.length) this.clear(this.hashes.length * 2, true);
    return this.add(word, h, id);
  }

  private add(word: string, h: number, id: number): number {
    const mask = this.hashes.length - 1;
    let e = h & mask;
    while (this.words[e]!.length > 0) e = (e + 1) & mask;
    this.words[e] = word;
    this.hashes[e] = h;
    this.values[e] = id;
    this.count++;
    return id;
  }

  /** A table of `size` entries: empty, or (`keep`) holding the entries of this one. */
  private clear(size: number, keep = false): void {
    const { words, hashes, values } = this;
    this.words = new Array<string>(size).fill('');
    this.hashes = new Int32Array(size);
    this.values = new Int32Array(size);
    this.count = 0;
    if (!keep) return;
    for (let e = 0; e < words.length; e++) if (words[e]!.length > 0) this.add(words[e]!, hashes[e]!, values[e]!);
  }
}

/** Whether `word` (lower-case) is text[start, start + word.length) lower-cased. */
function sameWord(word: string, text: string, start: number): boolean {
  for (let j = 0; j < word.length; j++) {
    let c = text.charCodeAt(start + j);
    if (c >= 65 && c <= 90) c += 32;
    if (c !== word.charCodeAt(j)) return false;
  }
  return true;
}
