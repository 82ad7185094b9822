import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { keywordTerms } from './keyword-terms';
import { countTerms, tokenize, words } from './tokenize';

describe('words', () => {
  it('reads ASCII text as it reads the same text among other characters', () => {
    for (const text of [
      "Don't rotate the billing_keys before Friday's 9:30 call (v2.1)?",
      "rock'n'roll isn't 'quoted' -- 42nd\tline\nend",
      'UPPER lower MiXeD 007bond',
      '',
    ]) {
      expect(words(text)).toEqual(words(`${text} é`).slice(0, -1));
      expect(keywordTerms(text)).toEqual(keywordTerms(`${text} é`).slice(0, -1));
    }
    expect(words("Don't STOP")).toEqual(['dont', 'stop']);
    expect(words('Don’t ｓｔｏｐ café')).toEqual(['dont', 'stop', 'café']);
  });
});

describe('countTerms', () => {
  it('counts what tokenize gives, stop words left out, without stemming anything', () => {
    for (const text of [
      'The deploys were running, and the runners ran.',
      "Don't rotate the billing keys before Friday?",
      'the a an of',
      '',
      'Café naïve 42 日本語',
    ])
      expect(countTerms(text)).toBe(tokenize(text).length);
    expect(countTerms('Caroline: I went to the LGBTQ support group yesterday')).toBe(6);
  });
});

describe('countTerms on ASCII text (scanned by character code)', () => {
  it('counts what tokenize gives: ASCII (cases, digits, apostrophes, stop words, punctuation) and other text', () => {
    const pieces = [
      'the',
      'The',
      'THE',
      'don',
      "don't",
      "Don'T",
      "it's",
      "won't9",
      "''",
      "'s",
      "abc'",
      "x'y'z",
      'yourselves',
      'YourSelves',
      'themselvesx',
      'a',
      'I',
      '42',
      '4u',
      'zanzibar',
      'Zanzibar',
      'ok',
      'okay',
      ' ',
      '  ',
      ',',
      '.',
      '-',
      '_',
      '\n',
      '?',
      '!',
      'café',
      'naïve',
      '’s',
      'don’t',
      'ﬁne',
      'Ünïcode',
      '😀',
    ];
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...pieces), { maxLength: 30 }),
        fc.array(fc.boolean(), { maxLength: 30 }),
        (parts, glue) => {
          const text = parts.map((p, i) => (glue[i] ? p : `${p} `)).join('');
          expect(countTerms(text)).toBe(tokenize(text).length);
        },
      ),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(fc.string({ unit: 'binary-ascii', maxLength: 60 }), (text) => {
        expect(countTerms(text)).toBe(tokenize(text).length);
      }),
      { numRuns: 2000 },
    );
  });
});
