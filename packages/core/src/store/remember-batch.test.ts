import { describe, expect, it } from 'vitest';
import type { Memory } from '../contracts';
import { HISTORY_PENDING, memoryToRecord } from './codec';
import { createdRecord } from './remember-batch';

const at = '2026-12-07T20:00:00.000Z';
const base: Memory = {
  specificationVersion: 'v1',
  id: 'mem_1',
  content: 'Luna sleeps all day',
  type: 'user',
  importance: 0.5,
  tags: [],
  namespace: 'user',
  tenant: '',
  createdAt: at,
  updatedAt: at,
  lastAccessedAt: at,
  occurredAt: at,
  accessCount: 0,
  contentHash: 'abc',
  metadata: {},
} as Memory;

describe('createdRecord', () => {
  it('is memoryToRecord with the pending-history marker: same keys in the same order, same values', () => {
    const variants: Memory[] = [
      base,
      { ...base, agentId: 'agent-7', branch: 'b1', namespace: 'user@b1', context: 'Session of May 7' },
      { ...base, occurredAt: '2023-05-07T10:00:00.000Z', importance: 0.9, tags: ['x'] },
      { ...base, occurredAt: undefined as unknown as string },
      { ...base, createdAt: '2026-12-07T19:00:00.000Z', updatedAt: '2026-12-07T19:30:00.000Z' },
      { ...base, mergeId: 'merge_1', supersededBy: 'mem_2' },
      { ...base, prunedAt: at },
      {
        ...base,
        entities: [
          { key: 'luna', name: 'Luna', kind: 'name', source: 'text' },
          { key: 'luna', name: 'Luna', kind: 'name', source: 'model' },
        ],
      },
      { ...base, entities: [] },
    ];
    const vector = new Float32Array([1, 0, -1]);
    for (const memory of variants) {
      const expected = memoryToRecord(memory, vector);
      expected.attributes[HISTORY_PENDING] = true;
      const record = createdRecord(memory, vector, at, Date.parse(at));
      expect(record).toEqual(expected);
      expect(Object.keys(record.attributes)).toEqual(Object.keys(expected.attributes));
      expect(JSON.stringify(record.attributes)).toBe(JSON.stringify(expected.attributes));
      expect(record.vector).toBe(vector);
      expect(record.payload).toBe(memory);
    }
  });
});
