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

  it('ranks as the exhaustive BM25F ranking in WebAssembly and in JS: texts and contexts, a restored index, 300 searches', () => {
    const random = seededRandom(3);
    const words = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel'];
    const phrase = (most: number) =>
      Array.from({ length: Math.floor(random() * most) }, () => words[Math.floor(random() ** 2 * words.length)]!).join(
        ' ',
      );
    // The third goes by MaxScore for the common terms (its block laid out without marks first).
    const indexes = [new KeywordIndex(), new KeywordIndex({ wasm: false }), new KeywordIndex({ termAtATime: 1500 })];
    const bm25 = new Bm25Index();
    for (let i = 0; i < 3000; i++) {
      const text = `${phrase(12)} ${words[i % words.length]}`;
      const context = random() < 0.4 ? phrase(20) : '';
      const id = `d${String(i).padStart(4, '0')}`;
      for (const index of indexes) index.set(id, { text, context, tenant: 't', namespace: 'n', attributes: {} });
      bm25.set(id, text, context);
    }
    const { header, parts } = indexes[0]!.toParts();
    indexes.push(KeywordIndex.fromParts(header, (n) => parts[n]!)!);
    // The first search has the most entries (its room is the largest any search asks), then rarer
    // terms, then common ones again.
    const first = 'alpha bravo charlie delta echo foxtrot';
    const common = ['alpha bravo', 'foxtrot echo alpha', 'delta', 'charlie bravo'];
    const rare = ['hotel golf', 'hotel', 'golf'];
    const ks = [1, 3, 10, 50];
    // More searches than the 255 marks of a slot's generation, the marks cleared once and reused: the
    // slots of the first search's terms that the 254 searches after it did not mark again are matched
    // by the searches after the marks came round.
    for (let round = 0; round < 300; round++) {
      const query = round === 0 ? first : round >= 255 ? common[round % common.length]! : rare[round % rare.length]!;
      const k = ks[round % ks.length]!;
      const expected = [...bm25.search(query, () => true)]
        .map(([id, score]) => ({ id, score }))
        .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1))
        .slice(0, k);
      for (const index of indexes) expect(index.search(query, { tenant: 't' }, k)).toEqual(expected);
    }
  });
});
