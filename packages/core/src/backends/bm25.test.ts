import { describe, expect, it } from 'vitest';
import { Bm25Index } from './bm25';

describe('Bm25Index', () => {
  const ranked = (index: Bm25Index, query: string, admit: (id: string) => boolean = () => true) =>
    [...index.search(query, admit)].sort((a, b) => b[1] - a[1]).map(([id]) => id);

  it('ranks by rare terms over common ones and matches inflections', () => {
    const index = new Bm25Index();
    index.set('a', 'the deploy pipeline runs on every push');
    index.set('b', 'the deploy pipeline uses kubernetes');
    index.set('c', 'the deploy pipeline is slow');
    const result = ranked(index, 'which pipelines deployed to Kubernetes');
    expect(result[0]).toBe('b');
    expect(result).toHaveLength(3);
  });

  it('computes idf over the admitted documents only (one tenant does not skew another)', () => {
    const index = new Bm25Index();
    index.set('t1-a', 'postgres backups run nightly');
    index.set('t1-b', 'redis cache ttl');
    for (let i = 0; i < 20; i++) index.set(`t2-${i}`, 'postgres everywhere');
    const t1 = (id: string) => id.startsWith('t1');
    const inT1 = index.search('postgres', t1).get('t1-a')!;
    const everywhere = index.search('postgres', () => true).get('t1-a')!;
    expect(inT1).toBeGreaterThan(everywhere);
    expect([...index.search('postgres', t1).keys()]).toEqual(['t1-a']);
  });

  it('does not count text without terms as a document, as FTS5 does not', () => {
    const a = new Bm25Index();
    const b = new Bm25Index();
    for (const index of [a, b]) {
      index.set('x', 'ferry to zanzibar');
      index.set('y', 'ferry schedule');
    }
    for (let i = 0; i < 10; i++) b.set(`history-${i}`, '');
    expect(b.search('zanzibar ferry', () => true)).toEqual(a.search('zanzibar ferry', () => true));
  });

  it('forgets removed and replaced documents', () => {
    const index = new Bm25Index();
    index.set('x', 'ferry to zanzibar');
    index.set('x', 'train to paris');
    expect(index.search('zanzibar', () => true).size).toBe(0);
    index.remove('x');
    expect(index.search('paris', () => true).size).toBe(0);
  });
});
