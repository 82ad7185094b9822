import { describe, expect, it } from 'vitest';
import type { Memory } from '../contracts';
import { namespaceFor } from '../scope';
import { contentHash } from '../text';
import { stableId } from '../util';
import { HISTORY_PENDING, memoryToRecord } from './codec';
import { DEFAULT_WRITE_LIMITS } from './limits';
import { batchKeys, createdRecord, filledArray, hashesByNamespace } from './remember-batch';
import { validateInput } from './validate';

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

describe('filledArray', () => {
  it('has count entries, none of them a value yet (none for 0)', () => {
    for (const count of [1, 2, 5000]) {
      const array = filledArray<string>(count);
      expect(array).toHaveLength(count);
      expect(array.every((entry) => entry === undefined)).toBe(true);
    }
    expect(filledArray<string>(0)).toStrictEqual([]);
  });

  it("gives batchKeys each input's namespace, hash and id in place", () => {
    const valid = ['Luna sleeps all day', 'luna  sleeps ALL day', 'The office moved'].map((content, i) =>
      validateInput({ content, type: i === 2 ? 'project' : 'user' }, DEFAULT_WRITE_LIMITS),
    );
    const scope = { tenant: 't1', agentId: undefined, branchName: 'main' };
    const keys = batchKeys(valid, scope);
    expect(keys.namespaces).toStrictEqual(['user', 'user', namespaceFor('project', 'main')]);
    expect(keys.hashes).toStrictEqual(valid.map((v) => contentHash(v.content)));
    expect(keys.hashes[0]).toBe(keys.hashes[1]);
    expect(keys.ids).toStrictEqual(keys.hashes.map((h, i) => stableId('mem', 't1', keys.namespaces[i]!, h)));
  });
});

describe('hashesByNamespace', () => {
  const namespaces = ['user', 'project', 'user', 'user', 'project'];
  const hashes = ['h1', 'h2', 'h3', 'h1', 'h4'];
  const entries = (map: Map<string, Set<string>>) => [...map].map(([n, set]) => [n, [...set]]);

  it('gives each namespace its hashes once, namespaces and hashes in the order inputs first hold them', () => {
    expect(entries(hashesByNamespace(namespaces, hashes, undefined))).toStrictEqual([
      ['user', ['h1', 'h3']],
      ['project', ['h2', 'h4']],
    ]);
  });

  it('among some inputs: only their namespaces, the first of them first (none: an empty map)', () => {
    expect(entries(hashesByNamespace(namespaces, hashes, [4, 2, 1]))).toStrictEqual([
      ['project', ['h4', 'h2']],
      ['user', ['h3']],
    ]);
    expect(entries(hashesByNamespace(namespaces, hashes, [3]))).toStrictEqual([['user', ['h1']]]);
    expect(entries(hashesByNamespace(namespaces, hashes, []))).toStrictEqual([]);
    expect(entries(hashesByNamespace([], [], undefined))).toStrictEqual([]);
  });
});
