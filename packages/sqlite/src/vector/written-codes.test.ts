import { encodeSigns, isSparse } from '@agentmem/core';
import { seededRandom } from '@agentmem/core/testing';
import { describe, expect, it } from 'vitest';
import { signCodes, signsInto } from './written-codes';

const random = seededRandom(17);

/** Vectors of every kind the codes meet: dense, sparse (a lexical embedder's), at the sparse line, zero, odd lengths. */
function vectors(dimension: number): Float32Array[] {
  const out: Float32Array[] = [];
  for (const zeroShare of [0, 0.1, 0.25, 0.26, 0.5, 0.8, 1]) {
    for (let n = 0; n < 20; n++) {
      const v = new Float32Array(dimension);
      for (let d = 0; d < dimension; d++) v[d] = random() < zeroShare ? 0 : random() - 0.5;
      if (n === 0) v[0] = -0; // a negative zero is zero, and not positive
      out.push(v);
    }
  }
  return out;
}

describe('written codes', () => {
  it('signsInto gives encodeSigns’ bits and isSparse’s answer in one pass', () => {
    for (const dimension of [1, 31, 32, 33, 384, 385]) {
      const words = Math.ceil(dimension / 32);
      for (const v of vectors(dimension)) {
        const out = new Uint32Array(words + 2).fill(0xffffffff);
        const sparse = signsInto(v, out, 1, words);
        expect([...out.subarray(1, 1 + words)]).toEqual([...encodeSigns(v, words)]);
        expect(out[0]).toBe(0xffffffff); // nothing written outside its words
        expect(out[1 + words]).toBe(0xffffffff);
        expect(sparse).toBe(isSparse(v));
      }
    }
  });

  it('signCodes gives each row its code and sparse flag, also for a vector of another length', () => {
    const dimension = 64;
    const rows = [...vectors(dimension), ...vectors(48)].map((floats) => ({ tenant: 't', namespace: 'n', floats }));
    const sparse: boolean[] = new Array(rows.length);
    const codes = signCodes(rows, dimension, 2, sparse);
    rows.forEach((row, i) => {
      expect(sparse[i]).toBe(isSparse(row.floats));
      if (row.floats.length === dimension)
        expect([...codes[i]!]).toEqual([...new Uint8Array(encodeSigns(row.floats, 2).buffer)]);
      else expect(codes[i]!.length).toBe(8);
    });
  });
});
