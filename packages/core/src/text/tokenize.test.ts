import { describe, expect, it } from 'vitest';
import { countTerms, tokenize } from './tokenize';

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
