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
