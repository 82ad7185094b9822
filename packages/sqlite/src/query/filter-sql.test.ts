import {
  type AttributeCondition,
  type AttributeValue,
  type BackendRecord,
  matchesFilter,
  type RecordFilter,
} from '@agentmem/core';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteBackend } from '../backend';

// Few distinct values so that conditions often hit; 1 and true, 0 and false, '1' and 1 must stay apart.
const value = fc.constantFrom<AttributeValue>('a', 'b', '1', '', 0, 1, 0.5, -2, true, false, null);
const keys = ['kind', 'status', 'n', 'flag', 'odd key'] as const;

const records: BackendRecord[] = [];
for (let i = 0; i < 120; i++) {
  const [attributes] = fc.sample(
    fc.record({ kind: value, status: value, n: value, flag: value, 'odd key': value }, { requiredKeys: [] }),
    {
      numRuns: 1,
      seed: i,
    },
  );
  records.push({
    id: `r${String(i).padStart(3, '0')}`,
    namespace: ['user', 'project:main', 'feedback'][i % 3]!,
    tenant: ['', 'alice', 'bob'][i % 4 === 0 ? 1 : i % 5 === 0 ? 2 : 0]!,
    text: `record ${i}`,
    vector: new Float32Array([1, (i % 7) / 7, (i % 3) / 3]),
    attributes: { ...attributes },
    payload: {},
  });
}

const range = fc.record(
  {
    gt: fc.double({ min: -3, max: 3, noNaN: true }),
    gte: fc.constantFrom(-2, 0, 0.5, 1),
    lt: fc.constantFrom(0, 1, 2),
    lte: fc.constantFrom(-2, 0.5, 1),
  },
  { requiredKeys: [] },
);
const condition: fc.Arbitrary<AttributeCondition> = fc.oneof(
  value,
  fc.record({ in: fc.array(value, { maxLength: 4 }) }),
  fc.record({ notIn: fc.array(value, { maxLength: 4 }) }),
  fc.record({ ne: value }),
  range,
);
const filter: fc.Arbitrary<RecordFilter> = fc.record(
  {
    tenant: fc.constantFrom<string | null>('', 'alice', 'bob', null),
    namespaces: fc.subarray(['user', 'project:main', 'feedback', 'other']),
    where: fc.dictionary(fc.constantFrom(...keys), condition, { maxKeys: 3 }),
  },
  { requiredKeys: ['tenant'] },
);

describe('filters compiled to SQL agree with core matchesFilter', () => {
  const backend = new SqliteBackend({ path: ':memory:' });
  beforeAll(async () => {
    await backend.init({ dimension: 3 });
    await backend.upsert(records);
  });
  afterAll(() => backend.close());

  it('scan and count return exactly the records matchesFilter accepts', async () => {
    await fc.assert(
      fc.asyncProperty(filter, async (f) => {
        const expected = records.filter((r) => matchesFilter(r, f)).map((r) => r.id);
        const page = await backend.scan({ filter: f, limit: 1000 });
        expect(page.records.map((r) => r.id)).toEqual(expected);
        expect(await backend.count(f)).toBe(expected.length);
      }),
      { numRuns: 300 },
    );
  });

  it('dense and keyword search only return records matchesFilter accepts, and all of them when k allows', async () => {
    await fc.assert(
      fc.asyncProperty(filter, async (f) => {
        const expected = records
          .filter((r) => matchesFilter(r, f))
          .map((r) => r.id)
          .sort();
        const dense = await backend.search({ mode: 'dense', vector: new Float32Array([1, 0, 0]), filter: f, k: 200 });
        expect(dense.map((h) => h.record.id).sort()).toEqual(expected);
        const kw = await backend.search({ mode: 'keyword', text: 'record', filter: f, k: 200 });
        expect(kw.map((h) => h.record.id).sort()).toEqual(expected);
      }),
      { numRuns: 100 },
    );
  });

  it('patched attributes are filtered by their new values (booleans and null kept as such)', async () => {
    const b = new SqliteBackend({ path: ':memory:' });
    try {
      await b.upsert([
        { id: 'p', namespace: 'ns', tenant: '', text: '', attributes: { flag: 1, gone: 'x' }, payload: {} },
      ]);
      await b.patch([{ id: 'p', attributes: { flag: true, gone: null, 'odd key': 2 } }]);
      const [got] = await b.get(['p']);
      expect(got?.attributes).toEqual({ flag: true, gone: null, 'odd key': 2 });
      expect(await b.count({ tenant: '', where: { flag: true } })).toBe(1);
      expect(await b.count({ tenant: '', where: { flag: 1 } })).toBe(0);
      expect(await b.count({ tenant: '', where: { gone: null, 'odd key': { gte: 2 } } })).toBe(1);
    } finally {
      await b.close();
    }
  });

  it('indexed attributes (own columns) follow patches and upserts, and only the patched ones change', async () => {
    const b = new SqliteBackend({ path: ':memory:' });
    try {
      const attributes = { kind: 'memory', status: 'active', type: 'user', contentHash: 'h', memoryId: 'm' };
      await b.upsert([{ id: 'p', namespace: 'ns', tenant: '', text: '', attributes, payload: {} }]);
      await b.patch([{ id: 'p', attributes: { status: true } }]);
      expect(await b.count({ tenant: '', where: { ...attributes, status: true } })).toBe(1);
      expect(await b.count({ tenant: '', where: { status: 1 } })).toBe(0);
      await b.patch([{ id: 'p', attributes: { status: 'pruned', memoryId: null } }]);
      expect(await b.count({ tenant: '', where: { ...attributes, status: 'pruned', memoryId: null } })).toBe(1);
      // An upsert replaces all attributes: one left out is missing (null) from then on.
      await b.upsert([
        { id: 'p', namespace: 'ns', tenant: '', text: '', attributes: { kind: 'skill', type: 2 }, payload: {} },
      ]);
      expect(
        await b.count({ tenant: '', where: { kind: 'skill', type: { gt: 1 }, status: null, contentHash: null } }),
      ).toBe(1);
      expect(await b.count({ tenant: '', where: { contentHash: 'h' } })).toBe(0);
    } finally {
      await b.close();
    }
  });
});

describe('keyword queries', () => {
  it('never throw, whatever the text (FTS5 syntax, quotes, any Unicode)', async () => {
    const b = new SqliteBackend({ path: ':memory:' });
    try {
      await b.upsert([
        {
          id: 'x',
          namespace: 'ns',
          tenant: '',
          text: 'naïve café — "quoted" AND (NEAR) *star* 東京 ǅ',
          attributes: {},
          payload: {},
        },
      ]);
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'binary' }), fc.string()),
          async (text) => {
            const hits = await b.search({ mode: 'keyword', text, filter: { tenant: '' }, k: 5 });
            expect(Array.isArray(hits)).toBe(true);
          },
        ),
        { numRuns: 500 },
      );
      for (const text of ['cafe', 'NAÏVE', 'quoted', 'near', 'star', '東京']) {
        const hits = await b.search({ mode: 'keyword', text, filter: { tenant: '' }, k: 5 });
        expect(
          hits.map((h) => h.record.id),
          text,
        ).toEqual(['x']);
      }
    } finally {
      await b.close();
    }
  });
});
