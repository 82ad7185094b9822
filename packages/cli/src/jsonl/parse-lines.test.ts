import { describe, expect, it } from 'vitest';
import { parseMemoryLines } from './parse-lines';

describe('parseMemoryLines', () => {
  it('reads a file that starts with a UTF-8 byte order mark (as the skills loader does)', () => {
    const parsed = parseMemoryLines(
      '\uFEFF{"content":"Deploys go out on Tuesdays","type":"project"}\r\n{"content":"b","type":"user"}\r\n',
    );
    expect(parsed.errors).toEqual([]);
    expect(parsed.lines.map((l) => [l.line, l.value.content])).toEqual([
      [1, 'Deploys go out on Tuesdays'],
      [2, 'b'],
    ]);
  });

  it('still refuses a byte order mark anywhere but at the start', () => {
    const parsed = parseMemoryLines('{"content":"a","type":"user"}\n\uFEFF{"content":"b","type":"user"}');
    expect(parsed.errors.map((e) => e.line)).toEqual([2]);
  });
});
