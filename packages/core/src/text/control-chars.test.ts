import { describe, expect, it } from 'vitest';
import { cleanStoredText, normalizeLineBreaks, toDisplayText } from './control-chars';

describe('character hygiene', () => {
  it('normalises every kind of line break to \\n', () => {
    expect(normalizeLineBreaks('a\r\nb\rc\u000bd\u000ce\u0085f\u2028g\u2029h')).toBe('a\nb\nc\nd\ne\nf\ng\nh');
  });

  it('display text has no escape sequences, control or bidi characters, nor lone surrogates', () => {
    expect(toDisplayText('\u001b[31mred\u001b[0m \u001b]0;title\u0007ok\u0000 \u202eevil\u2066 \ud800x\t')).toBe(
      'red ok evil \uFFFDx\t',
    );
  });

  it('stored text: NUL, escapes and control characters removed, lone surrogates replaced, tabs and line ends kept', () => {
    expect(cleanStoredText('a\u0000b \u001b[1mbold\u001b[0m\u0007 \udc00 \u{1F600} x\r\ny\tz')).toBe(
      'ab bold \uFFFD \u{1F600} x\r\ny\tz',
    );
  });
});
