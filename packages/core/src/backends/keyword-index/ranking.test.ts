import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../testing';
import { Bm25Index } from '../bm25';
import { KeywordIndex } from './keyword-index';
import { selectAscending } from './ranking';

describe('selectAscending', () => {
  it('gives at every index what sort() puts there, with ties, runs and one value, and stays in [0, n)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.integer({ min: -3, max: 3 }), fc.double({ min: -1e6, max: 1e6, noNaN: true })), {
          minLength: 1,
          maxLength: 80,
        }),
        fc.constantFrom('as is', 'sorted', 'reversed'),
        fc.nat(4),
        (given, order, extra) => {
          // -0 and 0 are one value here (sort() puts -0 first; scores are never -0).
          const raw = given.map((x) => (x === 0 ? 0 : x));
          const values = order === 'as is' ? raw : [...raw].sort((a, b) => (order === 'sorted' ? a - b : b - a));
          const n = values.length;
          const sorted = Float64Array.from(values).sort();
          for (let index = 0; index < n; index++) {
            // Values past n are not the input's and must not be looked at.
            const block = new Float64Array(n + extra).fill(Number.NEGATIVE_INFINITY);
            block.set(values);
            expect(selectAscending(block, n, index)).toBe(sorted[index]);
            expect(block.subarray(n)).toEqual(new Float64Array(extra).fill(Number.NEGATIVE_INFINITY));
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('MaxScore with the floor from its strongest term', () => {
  it('ranks as the exhaustive BM25F ranking where the strongest term alone holds more than k documents, ties at the k-th by id', () => {
    // Few words, short texts: many documents tie, and every term has dozens of documents.
    for (let seed = 1; seed <= 12; seed++) {
      const random = seededRandom(seed);
      const words = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot'];
      const index = new KeywordIndex({ termAtATime: 0 });
      const bm25 = new Bm25Index();
      for (let i = 0; i < 400; i++) {
        const length = 1 + Math.floor(random() * (seed % 2 === 0 ? 4 : 10));
        const text = Array.from({ length }, () => words[Math.floor(random() ** 2 * words.length)]!).join(' ');
        const id = `d${String(i).padStart(3, '0')}`;
        index.set(id, { text, context: '', tenant: 't', namespace: 'n', attributes: {} });
        bm25.set(id, text, '');
      }
      for (const query of ['alpha bravo', 'foxtrot echo alpha', 'delta', 'charlie foxtrot', 'echo delta bravo alpha']) {
        for (const k of [1, 2, 3, 5, 10, 25, 60]) {
          const expected = [...bm25.search(query, () => true)]
            .map(([id, score]) => ({ id, score }))
            .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1))
            .slice(0, k);
          expect(index.search(query, { tenant: 't' }, k)).toEqual(expected);
        }
      }
    }
  });

  it('keeps the k-th when the strongest term alone makes the k best (the floor is its k-th part, not above)', () => {
    // "zulu" (rare) in 30 documents of distinct lengths without "alpha"; "alpha" (in most documents)
    // adds little. The k best for "zulu alpha" are zulu's k shortest documents, the k-th scoring
    // exactly the floor: a floor one part higher would skip it.
    const index = new KeywordIndex({ termAtATime: 0 });
    const bm25 = new Bm25Index();
    const add = (id: string, text: string) => {
      index.set(id, { text, context: '', tenant: 't', namespace: 'n', attributes: {} });
      bm25.set(id, text, '');
    };
    for (let i = 0; i < 30; i++)
      add(`z${String(i).padStart(2, '0')}`, ['zulu', ...Array(6 * i).fill('bravo')].join(' '));
    for (let i = 0; i < 300; i++) add(`a${String(i).padStart(3, '0')}`, `alpha ${i % 2 === 0 ? 'bravo' : 'charlie'}`);
    for (const k of [1, 2, 5, 10, 20]) {
      const expected = [...bm25.search('zulu alpha', () => true)]
        .map(([id, score]) => ({ id, score }))
        .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1))
        .slice(0, k);
      expect(expected.map((m) => m.id)).toEqual(Array.from({ length: k }, (_, i) => `z${String(i).padStart(2, '0')}`));
      expect(index.search('zulu alpha', { tenant: 't' }, k)).toEqual(expected);
    }
  });

  it('ranks as the exhaustive ranking when the strongest term has more entries than the floor samples', () => {
    const random = seededRandom(7);
    const index = new KeywordIndex({ termAtATime: 0 });
    const bm25 = new Bm25Index();
    for (let i = 0; i < 2500; i++) {
      const words = [
        'kilo',
        ...Array.from({ length: Math.floor(random() * 8) }, () => (random() < 0.3 ? 'lima' : 'mike')),
      ];
      if (random() < 0.5) words.push('kilo');
      const id = `k${String(i).padStart(4, '0')}`;
      const text = words.join(' ');
      index.set(id, { text, context: '', tenant: 't', namespace: 'n', attributes: {} });
      bm25.set(id, text, '');
    }
    for (const query of ['kilo', 'kilo lima', 'kilo lima mike']) {
      for (const k of [1, 10, 60, 400]) {
        const expected = [...bm25.search(query, () => true)]
          .map(([id, score]) => ({ id, score }))
          .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1))
          .slice(0, k);
        expect(index.search(query, { tenant: 't' }, k)).toEqual(expected);
      }
    }
  });
});
