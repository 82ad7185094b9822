import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../testing';
import { cosineSimilarity } from '../../embedding/vector-math';
import { BinaryIndex, encodeRescoring } from '../binary-index';
import { CodeHeap } from './code-heap';

describe('the quantize kernel', () => {
  it('writes the bytes of the JS quantize (encodeRescoring): int8 copy and factor', () => {
    const heap = new CodeHeap();
    const kernels = heap.kernels;
    expect(kernels).toBeDefined(); // Node 20 runs WebAssembly SIMD
    const random = seededRandom(7);
    const d = 384;
    const cases: Float32Array[] = [];
    for (let i = 0; i < 200; i++) cases.push(Float32Array.from({ length: d }, () => random() * 2 - 1));
    // Halves that round either way, tiny and huge magnitudes, zeros and negative zeros, NaN and infinities.
    // Largest magnitude 127: the scale is 1 and the halves stay exact (floor(y + 0.5), not to even).
    cases.push(Float32Array.from({ length: d }, (_, i) => (i === 0 ? 127 : (i % 2 ? 0.5 : -0.5) * (1 + 2 * (i % 7)))));
    cases.push(Float32Array.from({ length: d }, (_, i) => (i - d / 2) * 1e-30));
    cases.push(Float32Array.from({ length: d }, (_, i) => (i % 3 ? 3e38 : -1e-3)));
    cases.push(Float32Array.from({ length: d }, (_, i) => (i % 2 ? 0 : -0)));
    cases.push(Float32Array.from({ length: d }, (_, i) => (i === 5 ? Number.NaN : random() - 0.5)));
    cases.push(Float32Array.from({ length: d }, (_, i) => (i === 9 ? Number.POSITIVE_INFINITY : random() - 0.5)));
    const vector = heap.alloc(d * 4);
    const out = heap.alloc(d + 16);
    const factor = heap.alloc(4);
    const words = Math.ceil(d / 32);
    for (const v of cases) {
      heap.f32.set(v, vector >>> 2);
      kernels!.quantize(vector, d, out, factor);
      const expected = encodeRescoring(v);
      expect(Buffer.from(heap.u8.subarray(factor, factor + 4))).toEqual(
        Buffer.from(expected.subarray(words * 4, words * 4 + 4)),
      );
      expect(Buffer.from(heap.u8.subarray(out, out + d))).toEqual(Buffer.from(expected.subarray(words * 4 + 4)));
    }
  });
});

describe('the cosine kernel', () => {
  const d = 384;
  const random = seededRandom(11);
  const cases: Float32Array[] = [];
  for (let i = 0; i < 50; i++) cases.push(Float32Array.from({ length: d }, () => random() * 2 - 1));
  // Zeros (scored 0), tiny and huge magnitudes, NaN and infinities, a vector and its negation.
  cases.push(new Float32Array(d));
  cases.push(Float32Array.from({ length: d }, (_, i) => (i - d / 2) * 1e-30));
  cases.push(Float32Array.from({ length: d }, (_, i) => (i % 3 ? 3e38 : -1e-3)));
  cases.push(Float32Array.from({ length: d }, (_, i) => (i === 5 ? Number.NaN : random() - 0.5)));
  cases.push(Float32Array.from({ length: d }, (_, i) => (i === 9 ? Number.POSITIVE_INFINITY : random() - 0.5)));
  cases.push(cases[0]!.map((x) => -x));

  it('gives the number of the JS cosineSimilarity, bit for bit', () => {
    const heap = new CodeHeap();
    const a = heap.alloc(d * 4);
    const b = heap.alloc(d * 4);
    for (const x of cases)
      for (const y of cases.slice(0, 8).concat(cases.slice(-6))) {
        heap.f32.set(x, a >>> 2);
        heap.f32.set(y, b >>> 2);
        expect(Object.is(heap.kernels!.cosine(a, b, d), cosineSimilarity(x, y))).toBe(true);
      }
  });

  for (const simd of [true, false])
    it(`scores a search's head through BinaryIndex.cosines as cosineSimilarity does (${simd ? 'kernel' : 'JS loop'})`, () => {
      const index = new BinaryIndex<number>(d, { rescoring: true, simd });
      for (const query of cases.slice(0, 3).concat(cases.slice(-6))) {
        const vectors = [...cases, Float32Array.from({ length: 100 }, () => random())]; // and one of another length
        expect(index.cosines(query, vectors)).toEqual(vectors.map((v) => cosineSimilarity(query, v)));
      }
    });
});
