import { describe, expect, it } from 'vitest';
import { editDistance } from './edit-distance';

describe('editDistance', () => {
  it('counts inserts, deletes and replacements', () => {
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('expect', 'expected')).toBe(2);
    expect(editDistance('same', 'same')).toBe(0);
  });

  it('counts a swap of two neighbours as one edit, as people mistype', () => {
    expect(editDistance('feature', 'fetaure')).toBe(1);
    expect(editDistance('ab', 'ba')).toBe(1);
  });
});
