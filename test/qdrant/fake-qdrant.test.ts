import { QdrantClient } from '@qdrant/js-client-rest';
import { OpenApiValidator } from './fake-qdrant';
import { loadQdrantSpec } from './spec';
import { expect, it } from 'vitest';
import { describeWithSpec, useFakeQdrant } from './helpers';

const uuid = (n: number) => `00000000-0000-5000-8000-${String(n).padStart(12, '0')}`;

/** The fake must behave like Qdrant where the adapter depends on it, and reject what Qdrant rejects. */
describeWithSpec('Fake Qdrant server: spec validation and Qdrant semantics', () => {
  const ctx = useFakeQdrant();
  const client = () => new QdrantClient({ url: ctx.fake.url, checkCompatibility: false });

  async function collection(name: string) {
    const c = client();
    await c.createCollection(name, {
      vectors: { dense: { size: 2, distance: 'Cosine' } },
      sparse_vectors: { s: { modifier: 'idf' } },
    });
    return c;
  }

  it('answers a request the real server would reject with 400 and records the violation', async () => {
    const c = await collection('v1');
    const error = await c
      .upsert('v1', { wait: true, points: [{ id: 'not-a-uuid', vector: {} }] })
      .catch((e: { status?: number; data?: { status?: { error?: string } } }) => e);
    expect((error as { status: number }).status).toBe(400);
    expect(ctx.fake.violations.join('\n')).toMatch(/upsert_points: request body: .*uuid/);
    const filterError = await c
      .count('v1', { filter: { must: [{ key: 'a', match: { value: 1 } }], bogus: true } as never })
      .catch((e) => e);
    expect((filterError as { status: number }).status).toBe(400);
    expect(ctx.fake.violations.join('\n')).toMatch(
      /count_points: request body: body\/filter must NOT have additional properties/,
    );
    ctx.fake.violations.length = 0;
  });

  it('reads OpenAPI 3.0 the way Qdrant means it: nullable fields, anyOf refs, formats, response shapes', () => {
    const validator = new OpenApiValidator(loadQdrantSpec());
    const { op } = validator.match('POST', '/collections/c/points/query')!;
    const ok = (body: unknown) => validator.validateRequest(op, new URLSearchParams(), body, true);
    expect(ok({ limit: null, filter: null, query: [0.1, 0.2], using: 'dense' })).toEqual([]);
    expect(ok({ query: { indices: [1], values: [0.5] }, using: 'bm25', limit: 5 })).toEqual([]);
    expect(ok({ query: { rrf: { k: 61 } }, prefetch: [{ query: [1], limit: 3 }] })).toEqual([]);
    expect(ok({ limit: -1 })).not.toEqual([]);
    expect(ok({ query: { indices: [-1], values: [1] } })).not.toEqual([]);
    expect(ok({ filter: { must: [{ has_id: ['a', 'a'] }] } })).not.toEqual([]);
    const { op: upsert } = validator.match('PUT', '/collections/c/points')!;
    expect(validator.validateRequest(upsert, new URLSearchParams('wait=true'), { points: [] }, true)).toEqual([]);
    expect(validator.validateRequest(upsert, new URLSearchParams('wait=soon'), { points: [] }, true)).not.toEqual([]);
    expect(
      validator.validateResponse(op, {
        status: 'ok',
        time: 0,
        result: { points: [{ id: 1, score: 0.5, version: 0 }] },
      }),
    ).toEqual([]);
    expect(validator.validateResponse(op, { status: 'ok', time: 0, result: { points: [{ id: 1 }] } })).not.toEqual([]);
  });

  it('refuses vectors of the wrong dimension and duplicate sparse indices, like Qdrant', async () => {
    const c = await collection('v2');
    const dim = await c.upsert('v2', { wait: true, points: [{ id: 1, vector: { dense: [1, 2, 3] } }] }).catch((e) => e);
    expect((dim as { data: { status: { error: string } } }).data.status.error).toBe(
      'Wrong input: Vector dimension error: expected dim: 2, got 3',
    );
    const dup = await c
      .upsert('v2', { wait: true, points: [{ id: 1, vector: { s: { indices: [1, 1], values: [1, 2] } } }] })
      .catch((e) => e);
    expect((dup as { status: number }).status).toBe(422);
  });

  it('filters: must / should / must_not, match value/any, range, is_empty, has_id', async () => {
    const c = await collection('f');
    await c.upsert('f', {
      wait: true,
      points: [
        { id: 1, vector: {}, payload: { a: 'x', n: 1, tags: ['p', 'q'] } },
        { id: 2, vector: {}, payload: { a: 'y', n: 2.5, z: null } },
        { id: 3, vector: {}, payload: { n: 7 } },
      ],
    });
    const ids = async (filter: Record<string, unknown>) =>
      (await c.scroll('f', { filter, with_payload: false })).points.map((p) => p.id);
    expect(await ids({ must: [{ key: 'a', match: { value: 'x' } }] })).toEqual([1]);
    expect(await ids({ must: [{ key: 'tags', match: { any: ['q', 'r'] } }] })).toEqual([1]);
    expect(
      await ids({
        should: [
          { key: 'a', match: { value: 'x' } },
          { key: 'n', range: { gt: 5 } },
        ],
      }),
    ).toEqual([1, 3]);
    expect(await ids({ must_not: [{ key: 'a', match: { value: 'x' } }] })).toEqual([2, 3]);
    expect(await ids({ must: [{ key: 'n', range: { gte: 1, lt: 2.5 } }] })).toEqual([1]);
    expect(await ids({ must: [{ is_empty: { key: 'a' } }] })).toEqual([3]);
    expect(await ids({ must: [{ is_empty: { key: 'z' } }] })).toEqual([1, 2, 3]);
    expect(await ids({ must: [{ is_null: { key: 'z' } }] })).toEqual([2]);
    expect(await ids({ must: [{ has_id: [2, 3] }, { must_not: [{ has_id: [3] }] }] })).toEqual([2]);
  });

  it('scroll returns points in id order with an inclusive offset and next_page_offset until the end', async () => {
    const c = await collection('s');
    await c.upsert('s', { wait: true, points: [5, 1, 4, 2, 3].map((n) => ({ id: uuid(n), vector: {} })) });
    const first = await c.scroll('s', { limit: 2, with_payload: false });
    expect(first.points.map((p) => p.id)).toEqual([uuid(1), uuid(2)]);
    expect(first.next_page_offset).toBe(uuid(3));
    const second = await c.scroll('s', { limit: 2, offset: first.next_page_offset as string });
    expect(second.points.map((p) => p.id)).toEqual([uuid(3), uuid(4)]);
    const last = await c.scroll('s', { limit: 2, offset: second.next_page_offset as string });
    expect(last.points.map((p) => p.id)).toEqual([uuid(5)]);
    expect(last.next_page_offset).toBeNull();
  });

  it('upsert overwrites the whole point; set_payload merges top-level keys', async () => {
    const c = await collection('o');
    await c.upsert('o', { wait: true, points: [{ id: 1, vector: { dense: [1, 0] }, payload: { a: 1, b: 2 } }] });
    await c.upsert('o', { wait: true, points: [{ id: 1, vector: {}, payload: { c: 3 } }] });
    const [p] = await c.retrieve('o', { ids: [1], with_vector: true });
    expect(p!.payload).toEqual({ c: 3 });
    expect(p!.vector).toEqual({});
    await c.setPayload('o', { wait: true, points: [1], payload: { d: 4 } });
    expect((await c.retrieve('o', { ids: [1] }))[0]!.payload).toEqual({ c: 3, d: 4 });
  });

  it('fuses with RRF as Qdrant computes it: 1 / (position + k), k = 2 by default', async () => {
    const c = await collection('r');
    await c.upsert('r', {
      wait: true,
      points: [
        { id: 1, vector: { dense: [1, 0], s: { indices: [9], values: [0.1] } } },
        { id: 2, vector: { dense: [0.9, 0.1], s: { indices: [9], values: [1] } } },
        { id: 3, vector: { dense: [0, 1] } },
      ],
    });
    const res = await c.query('r', {
      prefetch: [
        { query: [1, 0], using: 'dense', limit: 10 },
        { query: { indices: [9], values: [1] }, using: 's', limit: 10 },
      ],
      query: { fusion: 'rrf' },
    });
    // dense: 1, 2, 3; sparse: 2, 1.
    const scores = Object.fromEntries(res.points.map((p) => [p.id, p.score]));
    expect(scores[1]).toBeCloseTo(1 / 2 + 1 / 3, 6);
    expect(scores[2]).toBeCloseTo(1 / 3 + 1 / 2, 6);
    expect(scores[3]).toBeCloseTo(1 / 4, 6);
    const weighted = await c.query('r', {
      prefetch: [
        { query: [1, 0], using: 'dense', limit: 10 },
        { query: { indices: [9], values: [1] }, using: 's', limit: 10 },
      ],
      query: { rrf: { k: 60, weights: [3, 1] } },
    });
    // Qdrant's weighted formula: 1 / ((position + 1) / weight + k - 1).
    expect(weighted.points.find((p) => p.id === 1)!.score).toBeCloseTo(1 / (1 / 3 + 59) + 1 / (2 + 59), 6);
  });

  it("propagates a fused query's top-level filter into its prefetches (as Qdrant plans it)", async () => {
    const c = await collection('p');
    await c.upsert('p', {
      wait: true,
      points: [
        { id: 1, vector: { dense: [1, 0] }, payload: { t: 'a' } },
        { id: 2, vector: { dense: [0.9, 0.1] }, payload: { t: 'a' } },
        { id: 3, vector: { dense: [0, 1] }, payload: { t: 'b' } },
      ],
    });
    const filter = { must: [{ key: 't', match: { value: 'b' } }] };
    // The prefetch alone would return 1 and 2; the root filter reaches into it, so 3 is found.
    const top = await c.query('p', {
      prefetch: [{ query: [1, 0], using: 'dense', limit: 2 }],
      query: { fusion: 'rrf' },
      filter,
    });
    expect(top.points.map((p) => p.id)).toEqual([3]);
    // Merged with the prefetch's own filter (both must hold).
    const both = await c.query('p', {
      prefetch: [{ query: [1, 0], using: 'dense', limit: 2, filter: { must: [{ key: 't', match: { value: 'a' } }] } }],
      query: { fusion: 'rrf' },
      filter,
    });
    expect(both.points).toEqual([]);
    const inside = await c.query('p', {
      prefetch: [{ query: [1, 0], using: 'dense', limit: 2, filter }],
      query: { fusion: 'rrf' },
    });
    expect(inside.points.map((p) => p.id)).toEqual([3]);
    const bad = await c
      .query('p', { prefetch: [{ query: [1, 0], using: 'dense' }], query: { fusion: 'rrf' }, using: 'dense' })
      .catch((e) => e);
    expect((bad as { data: { status: { error: string } } }).data.status.error).toMatch(
      /Fusion queries cannot be combined with the 'using' field/,
    );
  });

  it('scores sparse vectors with idf over the collection: ln(1 + (N - n + 0.5) / (n + 0.5))', async () => {
    const c = await collection('i');
    await c.upsert('i', {
      wait: true,
      points: [
        { id: 1, vector: { s: { indices: [1, 2], values: [1, 2] } } },
        { id: 2, vector: { s: { indices: [1], values: [1] } } },
        { id: 3, vector: { s: { indices: [3], values: [1] } } },
      ],
    });
    const res = await c.query('i', { query: { indices: [1, 2], values: [1, 1] }, using: 's' });
    const idf = (n: number) => Math.log(1 + (3 - n + 0.5) / (n + 0.5));
    expect(res.points.map((p) => p.id)).toEqual([1, 2]);
    expect(res.points[0]!.score).toBeCloseTo(idf(2) * 1 + idf(1) * 2, 5);
    expect(res.points[1]!.score).toBeCloseTo(idf(2), 5);
  });

  it('injects faults: status codes, then normal answers', async () => {
    const c = await collection('x');
    ctx.fake.inject({ status: 503, times: 1 });
    await expect(c.count('x', {})).rejects.toMatchObject({ status: 503 });
    expect((await c.count('x', {})).count).toBe(0);
  });
});
