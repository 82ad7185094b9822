import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { packPostings, type Posting, unpackPostings, widened } from './packed';

const posting = (tfs: number[]): Posting => ({
  slots: Int32Array.from(tfs, (_, i) => i * 3),
  tfs: Uint32Array.from(tfs),
  n: tfs.length,
  df: new Int32Array([tfs.length]),
  maxText: 0,
  maxContext: 0,
});

describe('saved postings', () => {
  it('give back every frequency (text | context << 16) once widened from their two-byte form', () => {
    const tf = fc
      .tuple(fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }))
      .map(([t, c]) => t | (c << 16));
    fc.assert(
      fc.property(fc.array(fc.array(tf, { maxLength: 40 }), { minLength: 1, maxLength: 6 }), (terms) => {
        const saved = terms.map(posting);
        const bytes = packPostings(
          terms.map((_, i) => `t${i}`),
          terms.map((_, i) => i),
          saved,
        );
        const { postings } = unpackPostings(bytes, terms.length);
        postings.forEach((p, i) => {
          expect(p.narrowTfs).toBeDefined(); // one-byte frequencies are saved narrow
          expect(Array.from(widened(p).tfs)).toEqual(terms[i]);
          expect(p.narrowTfs).toBeUndefined();
          expect(Array.from(p.slots)).toEqual(Array.from(saved[i]!.slots));
        });
      }),
    );
  });
});
