import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { contentHash, normalizeContent } from './normalize';

describe('normalizeContent', () => {
  it('collapses every whitespace run to one space and keeps single spaces', () => {
    expect(normalizeContent('  Alice   likes\ttea\n\nand\u00a0cake\u2028 ')).toBe('alice likes tea and cake');
    expect(normalizeContent('Alice likes tea')).toBe('alice likes tea');
    expect(normalizeContent('ｆｕｌｌ　ｗｉｄｔｈ')).toBe('full width');
  });
});

describe('contentHash', () => {
  it('is the sha256 hex of the normalised text, as files written by earlier versions hold it', () => {
    for (const text of ['Alice  likes TEA', 'a\tb', 'héllo wörld 日本', 'x']) {
      const expected = createHash('sha256').update(normalizeContent(text)).digest('hex');
      expect(contentHash(text)).toBe(expected);
    }
    expect(contentHash('Alice  likes TEA')).toBe(contentHash('alice likes tea'));
  });
});
