import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cosineSimilarity } from '../embedding';
import { seededRandom } from '../testing';
import { BinaryIndex, encodeRescoring, encodeSigns, rankOrder } from './binary-index';

function vectors(n: number, dimension: number, seed: number): Float32Array[] {
  const random = seededRandom(seed);
  return Array.from({ length: n }, () => Float32Array.from({ length: dimension }, () => random() * 2 - 1));
}

function hamming(a: Float32Array, b: Float32Array): number {
  let d = 0;
  for (let i = 0; i < a.length; i++) if (a[i]! > 0 !== b[i]! > 0) d++;
  return d;
}

const scope = { tenant: '' };

// Every case runs twice: with the WebAssembly SIMD kernels (what Node uses) and with the JS loops (where WebAssembly cannot run).
for (const simd of [true, false])
  describe(`BinaryIndex (${simd ? 'SIMD kernels' : 'JS loops'})`, () => {
    // 384 dims take the kernel's four-codes-at-a-time path, 768 its general one; in the JS loop 100 has a
    // remainder word and 2080 (65 words) more than ten 3-word groups per code (byte counts flushed).
    for (const dimension of [384, 768, 100, 2080]) {
      it(`returns the m codes nearest by Hamming distance, nearest first (${dimension} dims)`, () => {
        const index = new BinaryIndex<number>(dimension, { simd });
        const data = vectors(500, dimension, dimension);
        // Opposites of the first vectors: the farthest codes possible (distances past 255 must not wrap).
        data.push(...data.slice(0, 50).map((v) => v.map((x) => -x)));
        for (const [i, v] of data.entries()) index.set(i, '', 'ns', v);
        for (const query of [...vectors(3, dimension, 7), data[0]!, data[1]!]) {
          const got = index.nearest(query, scope, 40);
          expect(got).toHaveLength(40);
          const distances = got.map((i) => hamming(query, data[i]!));
          expect(distances).toEqual([...distances].sort((a, b) => a - b));
          // Every code left out is at least as far as the farthest taken (ties cut at m).
          const taken = new Set(got);
          const farthest = distances[distances.length - 1]!;
          for (let i = 0; i < data.length; i++)
            if (!taken.has(i)) expect(hamming(query, data[i]!)).toBeGreaterThanOrEqual(farthest);
        }
      });
    }

    it('ranks nothing, without failing, in a scope with no codes or for m = 0 (a first search of a new index)', () => {
      const index = new BinaryIndex<number>(384, { rescoring: true, simd });
      const query = vectors(1, 384, 5)[0]!;
      expect(index.ranked(query, scope, 10)).toEqual({ keys: [], scores: new Float64Array(0) });
      index.set(1, '', 'ns', query);
      expect(index.ranked(query, { tenant: 'other' }, 10).keys).toEqual([]);
      expect(index.ranked(query, scope, 0).keys).toEqual([]);
      expect(index.ranked(query, scope, 10).keys).toEqual([1]);
    });

    it('ranks the Hamming pool by int8 cosine: the order and scores of exact cosine within 0.01', () => {
      const dimension = 384;
      const index = new BinaryIndex<number>(dimension, { rescoring: true, simd });
      const data = vectors(2000, dimension, 3);
      for (const [i, v] of data.entries()) index.set(i, '', 'ns', v);
      for (const query of vectors(10, dimension, 4)) {
        const { keys, scores } = index.ranked(query, scope, 200);
        expect(keys).toHaveLength(200);
        expect(new Set(keys)).toEqual(new Set(index.nearest(query, scope, 200)));
        const exact = keys.map((i) => cosineSimilarity(query, data[i]!));
        for (let r = 0; r < keys.length; r++) expect(Math.abs(scores[r]! - exact[r]!)).toBeLessThan(0.01);
        for (let r = 1; r < scores.length; r++) expect(scores[r]!).toBeLessThanOrEqual(scores[r - 1]!);
        // The exact top 10 of the pool are within the int8 ranking's first 14.
        const byExact = keys.map((key, r) => ({ key, s: exact[r]! })).sort((a, b) => b.s - a.s);
        const head = new Set(keys.slice(0, 14));
        for (const { key } of byExact.slice(0, 10)) expect(head.has(key)).toBe(true);
      }
    });

    // 9,000 codes span three chunks of 4,096: removals swap codes across chunks and drop emptied ones.
    for (const n of [300, 9000])
      it(`keeps codes and int8 copies in step through replacement, removal and moves between scopes (${n} codes)`, () => {
        const dimension = 64;
        const index = new BinaryIndex<string>(dimension, { rescoring: true, simd });
        const data = vectors(n, dimension, 5);
        for (const [i, v] of data.entries()) index.set(`k${i}`, 't', i % 2 ? 'a' : 'b', v);
        // Remove a third (swaps the last slot into each hole), replace some vectors, move some to namespace c.
        for (let i = 0; i < n; i += 3) index.remove(`k${i}`);
        const replaced = vectors(n, dimension, 6);
        for (let i = 1; i < n; i += 3) index.set(`k${i}`, 't', i % 2 ? 'a' : 'b', replaced[i]!);
        for (let i = 2; i < n; i += 6) index.set(`k${i}`, 't', 'c', data[i]!);
        const current = new Map<string, { v: Float32Array; ns: string }>();
        for (let i = 0; i < n; i++) {
          if (i % 3 === 0) continue;
          const v = i % 3 === 1 ? replaced[i]! : data[i]!;
          current.set(`k${i}`, { v, ns: i % 6 === 2 ? 'c' : i % 2 ? 'a' : 'b' });
        }
        expect(index.size).toBe(current.size);
        expect(index.count({ tenant: 't', namespaces: ['c'] })).toBe(
          [...current.values()].filter((c) => c.ns === 'c').length,
        );
        expect(index.count({ tenant: 'other' })).toBe(0);
        for (const query of vectors(5, dimension, 8)) {
          // The whole scope as the pool: every key, each scored from its current vector.
          const { keys, scores } = index.ranked(query, { tenant: 't', namespaces: ['a', 'c'] }, n);
          const want = [...current].filter(([, c]) => c.ns !== 'b').map(([k]) => k);
          expect(new Set(keys)).toEqual(new Set(want));
          for (const [r, key] of keys.entries())
            expect(scores[r]!).toBeCloseTo(cosineSimilarity(query, current.get(key)!.v), 1);
        }
      });

    it('loads persisted codes (encodeRescoring) to the same ranking as the vectors give', () => {
      const dimension = 384;
      const fromVectors = new BinaryIndex<number>(dimension, { rescoring: true, simd });
      const fromBytes = new BinaryIndex<number>(dimension, { rescoring: true, simd });
      for (const [i, v] of vectors(1000, dimension, 9).entries()) {
        fromVectors.set(i, '', 'ns', v);
        // Copied at an odd offset, as a blob read from a file may be.
        const bytes = new Uint8Array(encodeRescoring(v).length + 1);
        bytes.set(encodeRescoring(v), 1);
        fromBytes.setEncoded(i, '', 'ns', bytes.subarray(1));
      }
      for (const query of vectors(3, dimension, 10))
        expect(fromBytes.ranked(query, scope, 100)).toEqual(fromVectors.ranked(query, scope, 100));
      expect(() => fromBytes.setEncoded(1, '', 'ns', new Uint8Array(48))).toThrow(/encodeRescoring/);
    });

    it('encodes bit i as the sign of component i', () => {
      const v = new Float32Array(40);
      v[0] = 1;
      v[31] = 0.5;
      v[32] = 2;
      v[33] = -1;
      expect([...encodeSigns(v)]).toEqual([(1 | (1 << 31)) >>> 0, 1]);
    });

    it('stores each int8 component as Math.round of its scaled value, ties included, in every byte', () => {
      // The largest magnitude is 127, so the scale is 1 and these halves are exact ties.
      const v = new Float32Array(64);
      for (const [i, x] of [127, 63.5, -63.5, 0.5, -0.5, 2.5, -2.5, 1e-9, -126.49].entries()) v[i] = x;
      // Scaled, the second component is the largest double below 0.5, where y + 0.5 rounds up to 1.
      const nearHalf = new Float32Array(64);
      nearHalf[0] = 0.00024221109924837947;
      nearHalf[1] = 9.535870049148798e-7;
      expect(nearHalf[1]! * (127 / nearHalf[0]!)).toBe(0.49999999999999994);
      for (const vector of [v, nearHalf, ...vectors(20, 64, 11)]) {
        const code = encodeRescoring(vector);
        const words = 2;
        expect(code.length).toBe(words * 4 + 4 + 64);
        let max = 0;
        for (const x of vector) max = Math.max(max, Math.abs(x));
        const int8 = new Int8Array(code.buffer, code.byteOffset + words * 4 + 4, 64);
        expect([...int8]).toEqual([...vector].map((x) => Math.round(x * (127 / max)) || 0));
        expect([...code.subarray(0, words * 4)]).toEqual([...new Uint8Array(encodeSigns(vector).buffer)]);
        // The factor between them: undoes the scale and divides by the norm (float32, little-endian).
        let norm = 0;
        for (const x of vector) norm += x * x;
        const factor = new DataView(code.buffer, code.byteOffset + words * 4, 4).getFloat32(0, true);
        expect(factor).toBe(Math.fround(1 / ((127 / max) * Math.sqrt(norm))));
      }
    });

    it('refuses to rank without int8 copies', () => {
      expect(() => new BinaryIndex<number>(8, { simd }).ranked(new Float32Array(8), scope, 1)).toThrow(/rescoring/);
    });
  });

describe('BinaryIndex SIMD kernels', () => {
  it('run under Node, with the distances and scores of the JS loops', () => {
    expect(new BinaryIndex<number>(384).usesSimd).toBe(true);
    // 300 and 100 dims pad codes and int8 copies to 16-byte blocks; 2080 and 3072 take many blocks per code.
    for (const dimension of [384, 100, 300, 768, 2080, 3072]) {
      const simd = new BinaryIndex<number>(dimension, { rescoring: true, simd: true });
      const js = new BinaryIndex<number>(dimension, { rescoring: true, simd: false });
      expect(js.usesSimd).toBe(false);
      const data = vectors(700, dimension, dimension + 1);
      for (const [i, v] of data.entries()) {
        // Namespace c holds 3 codes: fewer than the four the kernel takes at a time.
        const ns = i < 3 ? 'c' : i % 3 ? 'a' : 'b';
        simd.set(i, '', ns, v);
        js.set(i, '', ns, v);
      }
      for (const query of vectors(3, dimension, 11)) {
        expect(simd.nearest(query, scope, 90)).toEqual(js.nearest(query, scope, 90));
        expect(simd.nearest(query, { tenant: '', namespaces: ['c'] }, 2)).toEqual(
          js.nearest(query, { tenant: '', namespaces: ['c'] }, 2),
        );
        const a = simd.ranked(query, { tenant: '', namespaces: ['a'] }, 120);
        const b = js.ranked(query, { tenant: '', namespaces: ['a'] }, 120);
        expect(new Set(a.keys)).toEqual(new Set(b.keys));
        // The kernel scales the query to int16: the same scores within its rounding (under 1e-5 here).
        const byKey = new Map(b.keys.map((k, r) => [k, b.scores[r]!]));
        for (const [r, key] of a.keys.entries()) expect(Math.abs(a.scores[r]! - byKey.get(key)!)).toBeLessThan(1e-4);
      }
    }
  });

  it('rank the pool in one rank8 call with the numbers of a dot8 call a candidate, bit for bit', () => {
    // The reference: dot8's exact integer sum of the int8 copy and the int16 query, then / scale * factor
    // / length in float64, as the JS loop computed each candidate; ranked by rankOrder. Pools of 121 and
    // 3 candidates leave remainders of the kernel's four at a time; 100 and 300 dims pad the last block.
    for (const dimension of [384, 100, 300, 2080]) {
      const index = new BinaryIndex<number>(dimension, { rescoring: true, simd: true });
      const data = vectors(600, dimension, dimension + 5);
      for (const [i, v] of data.entries()) index.set(i, '', 'ns', v);
      const blocks = Math.ceil(dimension / 16);
      const words = Math.ceil(dimension / 32);
      for (const query of vectors(3, dimension, 17)) {
        let max = 0;
        let norm = 0;
        for (const x of query) {
          max = Math.max(max, Math.abs(x));
          norm += x * x;
        }
        const scale = Math.min(32_767, Math.floor(0x7fffffff / (127 * blocks * 16))) / max;
        const q16 = Array.from(query, (x) => Math.round(x * scale));
        const length = Math.sqrt(norm);
        for (const m of [121, 3]) {
          const got = index.ranked(query, scope, m);
          expect(got.keys).toHaveLength(m);
          const expected = new Float64Array(
            got.keys.map((key) => {
              const code = encodeRescoring(data[key]!);
              const int8 = new Int8Array(code.buffer, code.byteOffset + words * 4 + 4, dimension);
              const factor = new Float32Array(
                code.buffer.slice(code.byteOffset + words * 4, code.byteOffset + words * 4 + 4),
              )[0]!;
              let dot = 0;
              for (let j = 0; j < dimension; j++) dot += int8[j]! * q16[j]!;
              return ((dot / scale) * factor) / length;
            }),
          );
          for (let r = 0; r < m; r++) expect(Object.is(got.scores[r], expected[r])).toBe(true);
          // Best first, ties by slot: the order rankOrder gives those scores.
          expect([...rankOrder(expected, m)]).toEqual(Array.from({ length: m }, (_, r) => r));
        }
      }
    }
  });

  it('carry on in the JS loops, codes intact, when the WebAssembly memory cannot grow', () => {
    const dimension = 384;
    const index = new BinaryIndex<number>(dimension, { rescoring: true });
    const js = new BinaryIndex<number>(dimension, { rescoring: true, simd: false });
    const data = vectors(3000, dimension, 12);
    for (const [i, v] of data.slice(0, 100).entries()) index.set(i, '', 'ns', v);
    expect(index.usesSimd).toBe(true);
    // As past WebAssembly's 4 GiB: the next growth fails.
    const memory = (index as unknown as { heap: { memory: { grow(pages: number): number } } }).heap.memory;
    memory.grow = () => {
      throw new RangeError('WebAssembly.Memory.grow(): Maximum memory size exceeded');
    };
    for (const [i, v] of data.entries()) {
      index.set(i, '', 'ns', v);
      js.set(i, '', 'ns', v);
    }
    expect(index.usesSimd).toBe(false);
    for (const query of vectors(3, dimension, 13)) {
      expect(index.nearest(query, scope, 50)).toEqual(js.nearest(query, scope, 50));
      expect(index.ranked(query, scope, 80)).toEqual(js.ranked(query, scope, 80));
    }
  });

  it('are what kernels.wat assembles to (npm run build:kernels)', () => {
    const script = join(dirname(fileURLToPath(import.meta.url)), '../../../../scripts/build-kernels.mjs');
    const run = spawnSync(process.execPath, [script, '--check'], { encoding: 'utf8' });
    expect(run.stderr + run.stdout).toContain('matches');
    expect(run.status).toBe(0);
  });
});

describe('rankOrder', () => {
  it('orders scores closer than the packed sort resolves (2^-19) exactly, best first, ties by index', () => {
    const scores = new Float64Array([0.5, 0.5 + 1e-7, 0.5 - 1e-7, 0.3, 0.5, -0.2]);
    expect([...rankOrder(scores, scores.length)]).toEqual([1, 0, 4, 2, 3, 5]);
  });
});
