import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SearchHit, BackendRecord } from '../contracts';
import { fuseKeywordFirst } from './rrf';

const hit = (id: string, score: number): SearchHit => ({ record: { id } as BackendRecord, score });
const weights = { dense: 0.03, keyword: 1 };

describe('keyword-first fusion', () => {
  it('keeps the keyword order, lets dense similarity break exact ties, and fills after the keyword hits', () => {
    const keyword = [hit('a', 3), hit('b', 2), hit('c', 2)];
    const dense = [hit('d', 0.9), hit('c', 0.8), hit('a', 0.1)];
    const fused = fuseKeywordFirst(dense, keyword, weights, 10);
    expect(fused.map((h) => h.record.id)).toEqual(['a', 'c', 'b', 'd']);
    expect(fused[1]).toMatchObject({ keyword: { rank: 3, score: 2 }, dense: { rank: 2, score: 0.8 } });
    expect(fused[3]).toMatchObject({ dense: { rank: 1, score: 0.9 } });
    expect(fused[3]!.keyword).toBeUndefined();
  });

  it('property: at every cut-off the fused list holds the keyword list’s top hits (by score), and scores fall', () => {
    const ids = fc.uniqueArray(fc.constantFrom(...'abcdefghijklmnop'), { maxLength: 12 });
    fc.assert(
      fc.property(
        ids,
        ids,
        fc.array(fc.integer({ min: 0, max: 5 }), { minLength: 12, maxLength: 12 }),
        fc.integer({ min: 1, max: 20 }),
        (kw, dn, scores, k) => {
          const keyword = kw.map((id, i) => hit(id, scores[i]!)).sort((a, b) => b.score - a.score);
          const dense = dn.map((id, i) => hit(id, 1 - i / 20));
          const fused = fuseKeywordFirst(dense, keyword, weights, k);
          const cut = Math.min(k, keyword.length);
          expect(fused.slice(0, cut).map((h) => h.keyword?.score)).toEqual(keyword.slice(0, cut).map((h) => h.score));
          expect(new Set(fused.map((h) => h.record.id)).size).toBe(fused.length);
          expect(fused.length).toBe(Math.min(k, new Set([...kw, ...dn]).size));
          for (let i = 1; i < fused.length; i++) expect(fused[i]!.score).toBeLessThan(fused[i - 1]!.score);
        },
      ),
    );
  });
});
