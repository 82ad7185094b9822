import { describe, expect, it } from 'vitest';
import type { SearchHit } from '../contracts';
import { activeFirstOnTies } from './active-first';

const hit = (id: string, score: number, status: string): SearchHit =>
  ({ record: { id, attributes: { status } }, score }) as unknown as SearchHit;

describe('activeFirstOnTies', () => {
  it('puts active hits first among equal scores only, keeping every other order', () => {
    const hits = [
      hit('a', 3, 'superseded'),
      hit('b', 2, 'superseded'),
      hit('c', 2, 'pruned'),
      hit('d', 2, 'active'),
      hit('e', 2, 'active'),
      hit('f', 1, 'active'),
      hit('g', 0.5, 'superseded'),
      hit('h', 0.5, 'active'),
    ];
    expect(activeFirstOnTies(hits).map((h) => h.record.id)).toEqual(['a', 'd', 'e', 'b', 'c', 'f', 'h', 'g']);
  });
});
