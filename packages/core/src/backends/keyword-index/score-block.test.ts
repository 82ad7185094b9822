import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../testing';
import { Bm25Index } from '../bm25';
import { KeywordIndex } from './keyword-index';
import { ScoreBlock } from './score-block';

/** The k-th best of the matched scores and the slots at or above it, by sorting (the reference). */
function reference(scores: readonly number[], matched: readonly number[], k: number) {
  const values = matched.map((s) => scores[s]!).sort((a, b) => b - a);
  const least = matched.length > k ? values[k - 1]! : Number.NEGATIVE_INFINITY;
  return { least, passing: matched.filter((s) => scores[s]! >= least) };
}

describe('ScoreBlock', () => {
  it('gives the k-th best score and the slots at or above it in match order, in WebAssembly and in JS', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 300 }),
        fc.array(fc.oneof(fc.integer({ min: 1, max: 4 }), fc.double({ min: 1e-6, max: 40, noNaN: true })), {
          minLength: 0,
          maxLength: 200,
        }),
        fc.integer({ min: 1, max: 30 }),
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        (slots, values, k, seed) => {
          const random = seededRandom(seed);
          // Distinct slots in a shuffled order, as a term-at-a-time search matches them.
          const order = Array.from({ length: slots }, (_, i) => i).sort(() => random() - 0.5);
          const matched = order.slice(0, Math.min(slots, values.length));
          const scores = Array.from({ length: slots }, () => random() * 50);
          matched.forEach((s, i) => {
            scores[s] = values[i]!;
          });
          const expected = reference(scores, matched, k);
          for (const wasm of [true, false]) {
            const block = new ScoreBlock(wasm);
            // A first, smaller room: the views are made again when it grows.
            block.reserve(1, 1);
            block.reserve(slots, matched.length);
            expect(block.wasmKernels).toBe(wasm); // Node runs WebAssembly
            block.scores.set(scores);
            block.matched.set(matched);
            const least = block.kth(matched.length, k);
            expect(least).toBe(expected.least);
            expect(Array.from(block.atLeast(matched.length, least))).toEqual(expected.passing);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('runs the WebAssembly kernels on Node (a restored or written index ranks the same either way)', () => {
    const random = seededRandom(3);
    const words = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel'];
    const indexes = [new KeywordIndex(), new KeywordIndex({ wasm: false })];
    const bm25 = new Bm25Index();
    for (let i = 0; i < 3000; i++) {
      const length = 1 + Math.floor(random() * 12);
      const text = Array.from({ length }, () => words[Math.floor(random() ** 2 * words.length)]!).join(' ');
      const id = `d${String(i).padStart(4, '0')}`;
      for (const index of indexes) index.set(id, { text, context: '', tenant: 't', namespace: 'n', attributes: {} });
      bm25.set(id, text, '');
    }
    const { header, parts } = indexes[0]!.toParts();
    indexes.push(KeywordIndex.fromParts(header, (n) => parts[n]!)!);
    for (const query of ['alpha bravo', 'hotel golf', 'foxtrot echo alpha', 'delta', 'golf hotel charlie bravo']) {
      for (const k of [1, 3, 10, 50]) {
        const expected = [...bm25.search(query, () => true)]
          .map(([id, score]) => ({ id, score }))
          .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1))
          .slice(0, k);
        for (const index of indexes) expect(index.search(query, { tenant: 't' }, k)).toEqual(expected);
      }
    }
  });
});
