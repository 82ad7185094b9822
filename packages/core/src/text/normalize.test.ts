import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { contentHash, normalizeContent } from './normalize';

describe('normalizeContent', () => {
  it('collapses every whitespace run to one space and keeps single spaces', () => {
    expect(normalizeContent('  Alice   likes\ttea\n\nand\u00a0cake\u2028 ')).toBe('alice likes tea and cake');
    expect(normalizeContent('Alice likes tea')).toBe('alice likes tea');
    expect(normalizeContent('ｆｕｌｌ　ｗｉｄｔｈ')).toBe('full width');
  });

  it('gives plain ASCII the same form as the full path (NFKC, lower case, collapse, trim)', () => {
    const full = (text: string) => text.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim();
    const parts = [
      'a',
      'B',
      'z',
      ' ',
      ' ',
      '  ',
      '\t',
      '\n',
      '\r',
      '~',
      '!',
      '0',
      '\u00a0',
      '\u00e9',
      'e\u0301',
      'ﬁ',
      'Ａ',
      '\u2028',
      '\u007f',
      '\u0000',
    ];
    let seed = 3;
    for (let i = 0; i < 5000; i++) {
      let text = '';
      for (let n = i % 12; n >= 0; n--) {
        seed = (seed * 1103515245 + 12345) % 2147483648;
        text += parts[seed % (i % 2 === 0 ? 8 : parts.length)];
      }
      expect(normalizeContent(text), JSON.stringify(text)).toBe(full(text));
    }
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
