import { describe, expect, it } from 'vitest';
import { newId, stableId } from './ids';

describe('newId', () => {
  it('is the prefix, 10 base32 digits of time, 4 of sequence and 8 random, sorting in creation order', () => {
    const t = 1_764_547_200_123;
    const ids = Array.from({ length: 40 }, (_, i) => newId('hist', t + Math.floor(i / 8)));
    for (const id of ids) expect(id).toMatch(/^hist_[0-9a-hjkmnp-tv-z]{22}$/);
    expect([...ids].sort()).toEqual(ids);
    // The time's base32 digits (most significant first) in the id alphabet, which skips i, l, o and u.
    const digits = [...t.toString(32).padStart(10, '0')].map((d) => '0123456789abcdefghjkmnpqrstvwxyz'[Number.parseInt(d, 32)]);
    expect(ids[0]!.slice(5, 15)).toBe(digits.join(''));
    expect(ids[1]!.slice(15, 19)).toBe('0001');
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('stableId gives the same id for the same parts', () => {
    expect(stableId('mem', 'a', 'b')).toBe(stableId('mem', 'a', 'b'));
    expect(stableId('mem', 'a', 'b')).not.toBe(stableId('mem', 'ab', ''));
  });
});
