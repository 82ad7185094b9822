import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../testing';
import { keywordTerms } from '../../text/keyword-terms';
import { ASCII_ONLY } from '../../text/tokenize';
import { AsciiWords } from './ascii-words';
import { KeywordIndex } from './keyword-index';

/** Pieces of text where words start, end and join: case, digits, apostrophes, stop words, inflections, controls. */
const PIECES = [
  'The',
  'cat',
  "cat's",
  "don't",
  "O'Neil",
  "rock'n'roll",
  "abc'123",
  "x'",
  "'x",
  "''",
  "'",
  'RUNNING',
  'runs',
  'ran',
  'ponies',
  'and',
  'of',
  'x1',
  '42',
  '3.14',
  'a-b',
  'foo_bar',
  'HeLLo!',
  '\t',
  '\n',
  '\u0000',
  '\u007f',
  '@#$',
  'Zanzibar',
  'deployed',
  'deployments',
  "it's",
  "IT'S",
];
const UNICODE = [
  'café',
  'CAFÉ',
  'naïve',
  'straße',
  'Ünïcödé',
  '東京',
  'カタカナ',
  'हिन्दी',
  'emoji😀',
  'it’s',
  'ﬁle',
  'Ⅻ',
];

function texts(count: number, unicode: number, seed = 5): string[] {
  const random = seededRandom(seed);
  const pick = (list: readonly string[]) => list[Math.floor(random() * list.length)]!;
  const glue = [' ', '', "'", ', ', '. ', '-', '  '];
  return Array.from({ length: count }, () => {
    let text = '';
    const n = Math.floor(random() * 14);
    for (let i = 0; i < n; i++) text += pick(glue) + (random() < unicode ? pick(UNICODE) : pick(PIECES));
    return text;
  });
}

describe('AsciiWords', () => {
  it("gives keywordTerms' terms of ASCII text, in order, as term ids", () => {
    const terms: string[] = [];
    const ids = new Map<string, number>();
    const words = new AsciiWords((term) => {
      let id = ids.get(term);
      if (id === undefined) {
        id = terms.push(term) - 1;
        ids.set(term, id);
      }
      return id;
    });
    // Twice over: the first pass meets every word new, the second finds them in the table.
    const all = texts(3000, 0);
    for (const text of [...all, ...all]) {
      expect(ASCII_ONLY.test(text)).toBe(true);
      const end = words.scan(text, 7);
      expect(Array.from(words.ids.subarray(7, end), (id) => terms[id])).toEqual(keywordTerms(text));
    }
  });

  it('gives -1 for text past ASCII, having given ids only to the terms keywordTerms gives first, in order', () => {
    // Unicode pieces joined to ASCII ones too ("catcafé", "don'é"): the scan stops before the word they end.
    let checked = 0;
    for (const text of texts(3000, 0.2, 8)) {
      const requested: string[] = [];
      const words = new AsciiWords((term) => requested.push(term) - 1);
      const end = words.scan(text, 0);
      const expected = [...new Set(keywordTerms(text))];
      if (ASCII_ONLY.test(text)) {
        expect(end).toBeGreaterThanOrEqual(0);
        continue;
      }
      expect(end, JSON.stringify(text)).toBe(-1);
      const given = [...new Set(requested)];
      expect(given, JSON.stringify(text)).toEqual(expected.slice(0, given.length));
      checked++;
    }
    expect(checked).toBeGreaterThan(1000);
  });

  it('holds every term of the densest texts, from any position (its room is sized before the scan)', () => {
    const words = new AsciiWords((term) => term.length);
    const random = seededRandom(4);
    // Words of one character between single separators, and words joined with no separator at all
    // (a word's apostrophe part ends it: "1'a2'b…"), the most terms a text's length holds, short and long.
    const dense = (n: number, joined: boolean) =>
      Array.from({ length: n }, (_, i) => (joined ? `${i % 10}'x` : `${i % 10}`)).join(joined ? '' : ' ');
    for (const n of [1, 2, 3, 15, 16, 17, 100, 1000, 20_000, 7, 50_000]) {
      for (const joined of [false, true]) {
        const text = dense(n, joined);
        const at = Math.floor(random() * 40);
        const end = words.scan(text, at);
        expect(end - at).toBe(keywordTerms(text).length);
        expect(Array.from(words.ids.subarray(at, end))).toEqual(keywordTerms(text).map((t) => t.length));
      }
    }
  });

  it('starts its table again past its size and still gives the same terms', () => {
    const words = new AsciiWords((term) => term.length);
    const random = seededRandom(9);
    // 140,000 distinct words (past the 131,072 held), in texts of 1,000.
    const batch = () =>
      Array.from({ length: 1000 }, () => `W${Math.floor(random() * 2 ** 40).toString(36)}x`).join(' ');
    for (let i = 0; i < 140; i++) {
      const text = batch();
      const end = words.scan(text, 0);
      expect(Array.from(words.ids.subarray(0, end))).toEqual(keywordTerms(text).map((t) => t.length));
    }
  });
});

describe('KeywordIndex tokenising', () => {
  it('saves the same bytes from the word table as from keywordTerms (a restored index, which takes terms by keywordTerms)', () => {
    // Texts and contexts ASCII or not, either one, so new terms take ids across both paths.
    const random = seededRandom(3);
    const built = new KeywordIndex();
    const empty = new KeywordIndex().toParts();
    const restored = KeywordIndex.fromParts(empty.header, (n) => empty.parts[n]!)!;
    const all = texts(2000, 0.15, 11);
    all.forEach((text, i) => {
      const context = random() < 0.4 ? all[(i * 7) % all.length] : undefined;
      const doc = {
        tenant: 't',
        namespace: random() < 0.5 ? 'a' : 'b',
        text,
        context,
        attributes: { kind: random() < 0.5 ? 'fact' : 'event' },
      };
      const id = `m${Math.floor(random() * 1500)}`; // some ids written again
      built.set(id, doc);
      restored.set(id, doc);
    });
    const a = built.toParts();
    const b = restored.toParts();
    expect(Buffer.from(a.header).equals(Buffer.from(b.header))).toBe(true);
    expect(a.parts.length).toBe(b.parts.length);
    a.parts.forEach((part, i) => {
      expect(Buffer.from(part).equals(Buffer.from(b.parts[i]!))).toBe(true);
    });
    for (const query of ['cat', 'The cat ran', 'cafe naive', "don't O'Neil", '東京 file', 'x1 42 deploy'])
      expect(built.search(query, { tenant: 't' }, 20)).toEqual(restored.search(query, { tenant: 't' }, 20));
  });
});
