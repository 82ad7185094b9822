import { cosineSimilarity } from '@agentmem/core';
import { seededRandom } from '@agentmem/core/testing';
import { describe, expect, it } from 'vitest';
import { SparseBuilder } from './sparse-build';
import { CHUNK, SparseIndex, sparseHeader } from './sparse-index';

const DIMENSION = 16;
const random = seededRandom(11);

/** A sparse vector (~25% of components non-zero), sometimes all zero (no bounds: always a candidate). */
function vector(): Float32Array {
  const v = new Float32Array(DIMENSION);
  if (random() < 0.001) return v;
  for (let d = 0; d < DIMENSION; d++) if (random() < 0.25) v[d] = (random() - 0.5) * (1 + 10 * random());
  return v;
}

/** The exact top m keys of the scopes (ties by key), what a full scan ranks. */
function exactTop(vectors: Map<number, { ns: string; v: Float32Array }>, query: Float32Array, ns: string[], m: number) {
  return [...vectors]
    .filter(([, x]) => ns.includes(x.ns))
    .map(([key, x]) => ({ key, score: cosineSimilarity(query, x.v) }))
    .sort((a, b) => b.score - a.score || a.key - b.key)
    .slice(0, m)
    .map((x) => x.key);
}

function equalParts(a: { header: Uint8Array; parts: Uint8Array[] }, b: { header: Uint8Array; parts: Uint8Array[] }) {
  expect(new TextDecoder().decode(a.header)).toBe(new TextDecoder().decode(b.header));
  expect(a.parts.length).toBe(b.parts.length);
  for (let n = 0; n < a.parts.length; n++) expect(Buffer.compare(a.parts[n]!, b.parts[n]!), `part ${n}`).toBe(0);
}

describe('SparseBuilder', () => {
  // More than a chunk (65,536 slots): the build finishes one chunk and starts the next.
  const count = CHUNK + 5_000;
  const vectors = new Map<number, { ns: string; v: Float32Array }>();
  const builder = new SparseBuilder(DIMENSION);
  const bySet = new SparseIndex(DIMENSION);
  // Numbered in the order the index meets them (the first key is in 'b'), so the headers agree.
  const scopes = { b: builder.scope('t', 'b'), a: builder.scope('t', 'a') };
  for (let i = 0; i < count; i++) {
    const key = 3 * i + 1; // rowids with gaps
    const ns = i % 5 === 0 ? 'b' : 'a';
    const v = vector();
    vectors.set(key, { ns, v });
    const bytes = new Uint8Array(v.buffer);
    // Given at an offset inside a larger blob, as a batch of rows arrives.
    const blob = new Uint8Array(bytes.length + 8);
    blob.set(bytes, 8);
    builder.add(key, ns === 'a' ? scopes.a : scopes.b, blob, 8);
    bySet.set(key, 't', ns, v);
  }
  const built = builder.finish();
  const added = [...vectors].map(([key, { ns, v }]) => ({ key, scope: ns === 'a' ? scopes.a : scopes.b, v }));

  it('gives the parts a SparseIndex of the same vectors saves, byte for byte', () => {
    expect(built.size).toBe(count);
    equalParts(built, bySet.toParts());
  });

  it('gives the same parts whatever its scratch blocks hold (one vector a block, or a vector that does not fit)', () => {
    for (const blockEntries of [DIMENSION, 40]) {
      const b = new SparseBuilder(DIMENSION, blockEntries);
      expect(b.scope('t', 'b')).toBe(scopes.b);
      expect(b.scope('t', 'a')).toBe(scopes.a);
      for (const { key, scope, v } of added) b.addVector(key, scope, v);
      equalParts(b.finish(), built);
    }
  });

  it('rejects keys out of order', () => {
    const b = new SparseBuilder(DIMENSION);
    const s = b.scope('t', 'a');
    b.add(5, s, new Uint8Array(DIMENSION * 4));
    expect(() => b.add(5, s, new Uint8Array(DIMENSION * 4))).toThrow(/ascending/);
  });

  it('restores into an index whose candidates hold the exact top m, and writes after it start a chunk of their own', () => {
    const reads: number[] = [];
    const index = SparseIndex.fromParts(built.header, {
      part: (n) => {
        reads.push(n);
        return built.parts[n]!;
      },
    });
    expect(index.size).toBe(count);
    // Unchanged: its parts are the built ones.
    equalParts(index.toParts(), built);
    for (let q = 0; q < 5; q++) {
      const query = vector();
      if (query.every((x) => x === 0)) continue;
      for (const ns of [['a', 'b'], ['b']]) {
        const candidates = new Set(index.candidates(query, { tenant: 't', namespaces: ns }, 10));
        expect(exactTop(vectors, query, ns, 10).filter((k) => !candidates.has(k))).toEqual([]);
      }
    }
    // A new key, a replaced one and a removed one: none reads the rest of the restored last chunk's columns.
    const before = reads.length;
    // Dense, in a direction no stored vector has: these two are the query's top 2.
    const fresh = Float32Array.from({ length: DIMENSION }, (_, d) => (d % 3) - 0.7);
    index.set(10 * count, 't', 'a', fresh);
    vectors.set(10 * count, { ns: 'a', v: fresh });
    index.set(4, 't', 'b', fresh);
    vectors.set(4, { ns: 'b', v: fresh });
    index.remove(7);
    vectors.delete(7);
    expect(reads.length).toBe(before);
    const query = fresh;
    const candidates = index.candidates(query, { tenant: 't' }, 2)!;
    expect(candidates).toEqual(expect.arrayContaining(exactTop(vectors, query, ['a', 'b'], 2)));
    expect(candidates).toEqual(expect.arrayContaining([10 * count, 4]));
    expect(candidates).not.toContain(7);
    // Saved again: the same parts as an index that took the same vectors one by one.
    const again = new SparseIndex(DIMENSION);
    for (const [key, { ns, v }] of [...vectors].sort((x, y) => x[0] - y[0])) again.set(key, 't', ns, v);
    equalParts(index.toParts(), again.toParts());
  });
});

describe('a restored index of build slices (chunks not all full)', () => {
  it('finds, replaces and removes keys of every chunk, and holds no key above `through`', () => {
    // Two slices of 300 and 200 keys (a chunk of 300 before the next: slots 0-299, then 65,536-65,735).
    const vectors = new Map<number, { ns: string; v: Float32Array }>();
    const headers: number[] = [];
    const parts: Uint8Array[] = [];
    for (const [from, n] of [
      [0, 300],
      [300, 200],
    ] as const) {
      const b = new SparseBuilder(DIMENSION);
      const scope = b.scope('t', 'a');
      for (let i = from; i < from + n; i++) {
        const v = vector();
        vectors.set(2 * i + 1, { ns: 'a', v });
        b.add(2 * i + 1, scope, new Uint8Array(v.buffer));
      }
      const { parts: p } = b.finish();
      headers.push(n);
      parts.push(...p);
    }
    const through = 2 * 499 + 1;
    const header = sparseHeader(DIMENSION, headers, [{ tenant: 't', namespace: 'a' }], through);
    const index = SparseIndex.fromParts(header, { part: (n) => parts[n]! });
    expect(index.size).toBe(500);
    const check = () => {
      for (let q = 0; q < 20; q++) {
        const query = vector();
        const got = new Set(index.candidates(query, { tenant: 't' }, 10) ?? []);
        for (const key of exactTop(vectors, query, ['a'], 10)) expect(got.has(key), `key ${key}`).toBe(true);
      }
    };
    check();
    // Keys of the first chunk (binary search must not run into its unused slots) and of the second.
    for (const key of [1, 299, 599, 601, 999]) {
      const v = vector();
      index.set(key, 't', 'a', v);
      vectors.set(key, { ns: 'a', v });
    }
    for (const key of [3, 801]) {
      index.remove(key);
      vectors.delete(key);
    }
    index.set(through + 2, 't', 'a', vector()); // above `through`: scanned by the search, not held
    expect(index.size).toBe(498);
    check();
    const saved = index.toParts();
    expect(JSON.parse(new TextDecoder().decode(saved.header))).toMatchObject({ chunks: [498], through });
  });
});
