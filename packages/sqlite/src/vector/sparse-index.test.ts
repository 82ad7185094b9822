import { BinaryPartError, cosineSimilarity, HashingEmbedder } from '@agentmem/core';
import { seededRandom } from '@agentmem/core/testing';
import { describe, expect, it } from 'vitest';
import { SparseIndex } from './sparse-index';

const embedder = new HashingEmbedder({ dimension: 64 });
const random = seededRandom(7);
const vocabulary = Array.from({ length: 300 }, (_, i) => `w${i.toString(36)}z`);
const text = () =>
  Array.from({ length: 2 + Math.floor(random() * 6) }, () => vocabulary[Math.floor(random() * 300)]).join(' ');

/** The exact top m keys of the scope by float64 cosine, ties by key (what a full scan ranks). */
function exactTop(
  vectors: Map<number, { scope: string; v: Float32Array }>,
  query: Float32Array,
  scopes: Set<string>,
  m: number,
): number[] {
  return [...vectors]
    .filter(([, x]) => scopes.has(x.scope))
    .map(([key, x]) => ({ key, score: cosineSimilarity(query, x.v) }))
    .sort((a, b) => b.score - a.score || a.key - b.key)
    .slice(0, m)
    .map((x) => x.key);
}

describe('SparseIndex', () => {
  // 40k keys in one chunk of 65,536 with removals, replacements and scopes (sparse-build.test.ts covers
  // several chunks, and writes after a restore going to a chunk of their own).
  const index = new SparseIndex(64);
  const vectors = new Map<number, { scope: string; v: Float32Array }>();
  for (let key = 1; key <= 40_000; key++) {
    const namespace = key % 7 === 0 ? 'b' : 'a';
    const v = embedder.embedOne(text());
    index.set(key, 't', namespace, v);
    vectors.set(key, { scope: namespace, v });
  }

  const check = (ix: SparseIndex) => {
    for (let q = 0; q < 20; q++) {
      // Words no stored text has (the no-match query), and words they have.
      const query = embedder.embedOne(q % 2 === 0 ? `zq${q}x unseen${q} nothing` : text());
      for (const [namespaces, scopes] of [
        [undefined, new Set(['a', 'b'])],
        [['b'], new Set(['b'])],
      ] as const) {
        const best = exactTop(vectors, query, scopes, 600);
        for (const m of [1, 10, 600]) {
          const candidates = new Set(ix.candidates(query, { tenant: 't', namespaces }, m));
          const top = best.slice(0, m);
          expect(top.filter((key) => !candidates.has(key))).toEqual([]);
          // Tight: the bounds leave out nearly everything else.
          expect(candidates.size).toBeLessThan(m * 3 + 50);
        }
      }
    }
  };

  it('returns every key of the exact top m of the scope, among few others', () => {
    check(index);
  });

  it('follows replacements and removals, also of keys out of order', () => {
    for (let key = 1; key <= 40_000; key += 97) {
      const v = embedder.embedOne(text());
      index.set(key, 't', 'a', v);
      vectors.set(key, { scope: 'a', v });
    }
    for (let key = 5; key <= 40_000; key += 101) {
      index.remove(key);
      vectors.delete(key);
    }
    // A zero vector has no bounds: always a candidate, never lost.
    index.set(50_000, 't', 'a', new Float32Array(64));
    expect(index.size).toBe(vectors.size + 1);
    expect(index.candidates(embedder.embedOne('zq1x nothing'), { tenant: 't' }, 10)).toContain(50_000);
    index.remove(50_000);
    check(index);
    // Another tenant's keys are never candidates.
    index.set(60_000, 'u', 'a', embedder.embedOne('zq1x nothing'));
    expect(index.candidates(embedder.embedOne('zq1x nothing'), { tenant: 't' }, 10)).not.toContain(60_000);
    index.remove(60_000);
    // A zero query has no nearest: the caller scans.
    expect(index.candidates(new Float32Array(64), { tenant: 't' }, 10)).toBeUndefined();
  });

  it('restores from its parts with the same candidates, reading the columns it needs', () => {
    const { header, parts } = index.toParts();
    expect(SparseIndex.isHeader(header)).toBe(true);
    const read = new Set<number>();
    const restored = SparseIndex.fromParts(header, {
      part: (n) => {
        read.add(n);
        return parts[n]!;
      },
    });
    expect(restored.size).toBe(index.size);
    const keyParts = read.size;
    const query = embedder.embedOne('zq3x unseen');
    expect(restored.candidates(query, { tenant: 't' }, 10)).toEqual(
      expect.arrayContaining(exactTop(vectors, query, new Set(['a', 'b']), 10)),
    );
    // Only the query's non-zero dimensions' columns were read, not all 64 of each chunk.
    const nonZero = query.filter((x) => x !== 0).length;
    expect(read.size - keyParts).toBe(nonZero * keyParts);
    check(restored);
    // Written after the restore: a change to a saved key and a new one.
    const v = embedder.embedOne('zq3x unseen');
    restored.set(3, 't', 'a', v);
    restored.set(70_000, 't', 'b', v);
    const c = restored.candidates(query, { tenant: 't' }, 2);
    expect(c).toEqual(expect.arrayContaining([3, 70_000]));
  });

  it('throws BinaryPartError when a column part is gone (another save replaced it)', () => {
    const { header, parts } = index.toParts();
    const restored = SparseIndex.fromParts(header, {
      part: (n) => {
        if (n % 65 !== 0) throw new BinaryPartError('gone');
        return parts[n]!;
      },
    });
    expect(() => restored.candidates(embedder.embedOne('zq3x'), { tenant: 't' }, 10)).toThrow(BinaryPartError);
  });
});
