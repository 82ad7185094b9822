import type { BackendRecord } from '@agentmem/core';
import { describe, expect, it } from 'vitest';
import { SqliteBackend } from '../backend';

describe('filtered dense search', () => {
  it('finds matches ranked beyond the largest candidate pool (k > 4096 candidates)', async () => {
    const b = new SqliteBackend({ path: ':memory:' });
    try {
      await b.init({ dimension: 2 });
      const records: BackendRecord[] = [];
      for (let i = 0; i < 6000; i++) {
        // The five records the filter keeps are the ones least similar to the query.
        const angle = (i / 6000) * (Math.PI / 2);
        records.push({
          id: `v${String(i).padStart(4, '0')}`,
          namespace: 'ns',
          tenant: '',
          text: '',
          vector: new Float32Array([Math.cos(angle), Math.sin(angle)]),
          attributes: { keep: i >= 5995 },
          payload: {},
        });
      }
      await b.upsert(records);
      const hits = await b.search({
        mode: 'dense',
        vector: new Float32Array([1, 0]),
        filter: { tenant: '', where: { keep: true } },
        k: 3,
      });
      expect(hits.map((h) => h.record.id)).toEqual(['v5995', 'v5996', 'v5997']);
      expect(hits[0]!.score).toBeCloseTo(Math.cos((5995 / 6000) * (Math.PI / 2)), 4);
      const unfiltered = await b.search({
        mode: 'dense',
        vector: new Float32Array([1, 0]),
        filter: { tenant: '' },
        k: 5000,
      });
      expect(unfiltered).toHaveLength(5000);
      expect(unfiltered[0]!.record.id).toBe('v0000');
    } finally {
      await b.close();
    }
  });
});
