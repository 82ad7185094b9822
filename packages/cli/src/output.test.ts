import { describe, expect, it } from 'vitest';
import { formatSignals, renderTable, truncate } from './output';

describe('renderTable', () => {
  const rows = [
    { id: 'a', score: 0.5, content: 'short' },
    { id: 'bbbb', score: 1, content: 'a much longer piece of content\nwith a line break' },
  ];

  it('aligns columns under their headers, right-aligning where asked', () => {
    const lines = renderTable(rows, ['id', { key: 'score', align: 'right' }, 'content']).split('\n');
    expect(lines[0]).toBe('ID    SCORE  CONTENT');
    expect(lines[1]).toBe('----  -----  ------------------------------------------------');
    expect(lines[2]).toBe('a     0.500  short');
    expect(lines[3]).toBe('bbbb      1  a much longer piece of content with a line break');
  });

  it('cuts cells longer than their column max with an ellipsis', () => {
    const table = renderTable(rows, ['id', { key: 'content', max: 12 }]);
    expect(table).toContain('a much long…');
    expect(table.split('\n').every((l) => l.length <= 4 + 2 + 12)).toBe(true);
  });

  it('fits the terminal width by cutting the last column', () => {
    const table = renderTable(rows, ['id', 'score', 'content'], { width: 40 });
    expect(table.split('\n').every((l) => l.length <= 40)).toBe(true);
    expect(table).toContain('…');
  });

  it('is empty for no rows', () => {
    expect(renderTable([])).toBe('');
  });
});

describe('truncate and formatSignals', () => {
  it('collapses whitespace and keeps short text whole', () => {
    expect(truncate('  a\n b  ', 10)).toBe('a b');
    expect(truncate('abcdefghij', 5)).toBe('abcd…');
  });

  it('names each signal with its rank and raw score', () => {
    expect(formatSignals({ dense: { rank: 2, score: 0.41234 }, keyword: { rank: 1, score: 3.2 } })).toBe(
      'dense #2 (0.412) · keyword #1 (3.200)',
    );
    expect(formatSignals({})).toBe('-');
  });
});
