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
    // y = x * 127 / max = 0.49999999999999994, where y + 0.5 rounds up to 1: the step that takes it back to 0.
    cases.push(
      Float32Array.from({ length: d }, (_, i) =>
        i === 0 ? 62.696754455566406 : i % 5 ? random() - 0.5 : 0.24683761596679688,
      ),
    );
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

  it('quantizeMany writes what quantize writes for each of n vectors side by side, at its stride, and nothing else', () => {
    const heap = new CodeHeap();
    const random = seededRandom(17);
    for (const [d, n] of [
      [384, 70],
      [100, 5],
      [17, 1],
      [384, 0],
    ] as const) {
      const stride = Math.ceil(d / 16) * 16 + 16;
      const vectors = heap.alloc(Math.max(n, 1) * d * 4);
      const out = heap.alloc((n + 1) * stride);
      const factors = heap.alloc((n + 1) * 4);
      const vs = Array.from({ length: n }, () => Float32Array.from({ length: d }, () => random() * 2 - 1));
      for (const [i, v] of vs.entries()) heap.f32.set(v, (vectors >>> 2) + i * d);
      heap.u8.fill(0xaa, out, out + (n + 1) * stride);
      heap.u8.fill(0xaa, factors, factors + (n + 1) * 4);
      heap.kernels!.quantizeMany(vectors, d, out, factors, n, stride);
      const words = Math.ceil(d / 32);
      for (let i = 0; i < n; i++) {
        const expected = encodeRescoring(vs[i]!);
        const at = out + i * stride;
        expect(Buffer.from(heap.u8.subarray(factors + i * 4, factors + i * 4 + 4))).toEqual(
          Buffer.from(expected.subarray(words * 4, words * 4 + 4)),
        );
        expect(Buffer.from(heap.u8.subarray(at, at + d))).toEqual(Buffer.from(expected.subarray(words * 4 + 4)));
        expect(heap.u8.subarray(at + d, at + stride).every((b) => b === 0xaa)).toBe(true);
      }
      // Nothing past the n-th copy and factor.
      expect(heap.u8.subarray(out + n * stride, out + (n + 1) * stride).every((b) => b === 0xaa)).toBe(true);
      expect(heap.u8.subarray(factors + n * 4, factors + (n + 1) * 4).every((b) => b === 0xaa)).toBe(true);
    }
  });

  it('writes the same bytes at dimensions that leave a tail of 1-15 components, and nothing past them', () => {
    // The kernel takes 16 components a step (4 for the norm and the largest magnitude), then one at a time.
    const heap = new CodeHeap();
    const random = seededRandom(13);
    for (const d of [1, 3, 4, 5, 15, 16, 17, 31, 100, 383, 385, 1536]) {
      const words = Math.ceil(d / 32);
      const vector = heap.alloc(d * 4 + 64);
      const out = heap.alloc(d + 32);
      const factor = heap.alloc(16);
      for (let c = 0; c < 5; c++) {
        const v = Float32Array.from({ length: d }, (_, i) =>
          c === 1 && i === d - 1 ? 7 : c === 2 && i === d - 1 ? Number.NaN : random() * 2 - 1,
        );
        heap.f32.set(v, vector >>> 2);
        heap.f32.fill(1e6, (vector >>> 2) + d, (vector >>> 2) + d + 16); // past the vector: never read
        heap.u8.fill(0xaa, out, out + d + 32);
        heap.kernels!.quantize(vector, d, out, factor);
        const expected = encodeRescoring(v);
        expect(Buffer.from(heap.u8.subarray(factor, factor + 4))).toEqual(
          Buffer.from(expected.subarray(words * 4, words * 4 + 4)),
        );
        expect(Buffer.from(heap.u8.subarray(out, out + d))).toEqual(Buffer.from(expected.subarray(words * 4 + 4)));
        expect([...heap.u8.subarray(out + d, out + d + 32)].every((b) => b === 0xaa)).toBe(true);
      }
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

describe('the hamming3 kernel', () => {
  it('gives the distances and histogram of the hamming kernel for codes of three blocks (x86-64 only)', () => {
    const heap = new CodeHeap();
    const kernels = heap.kernels!;
    expect(kernels.hamming3 === undefined).toBe(process.arch !== 'x64');
    if (!kernels.hamming3) return;
    const random = seededRandom(9);
    // 1,001 codes: the SIMD kernel's four-at-a-time loop and its tail; codes equal to the query (0) and
    // its complement (384) at both ends of the histogram.
    const n = 1001;
    const codes = heap.alloc(n * 48);
    const query = heap.alloc(48);
    const outA = heap.alloc(n * 2);
    const outB = heap.alloc(n * 2);
    const histA = heap.alloc(385 * 4);
    const histB = heap.alloc(385 * 4);
    const u8 = heap.u8;
    for (let i = 0; i < 48; i++) u8[query + i] = Math.floor(random() * 256);
    for (let c = 0; c < n; c++)
      for (let i = 0; i < 48; i++)
        u8[codes + c * 48 + i] =
          c === 0 ? u8[query + i]! : c === n - 1 ? 255 - u8[query + i]! : Math.floor(random() * 256);
    u8.fill(0, histA, histA + 385 * 4);
    u8.fill(0, histB, histB + 385 * 4);
    kernels.hamming(codes, n, 3, query, outA, histA);
    kernels.hamming3(codes, n, query, outB, histB);
    const distances = [...heap.u16.subarray(outB >>> 1, (outB >>> 1) + n)];
    expect(distances).toEqual([...heap.u16.subarray(outA >>> 1, (outA >>> 1) + n)]);
    expect(distances[0]).toBe(0);
    expect(distances[n - 1]).toBe(384);
    expect([...heap.u32.subarray(histB >>> 2, (histB >>> 2) + 385)]).toEqual([
      ...heap.u32.subarray(histA >>> 2, (histA >>> 2) + 385),
    ]);
  });
});
