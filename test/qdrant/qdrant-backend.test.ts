import {
  AgentMemoryError,
  type BackendRecord,
  fuseRrf,
  HashingEmbedder,
  matchesFilter,
  type RecordFilter,
  tokenize,
} from '@agentmem/core';
import { FakeEmbedder } from '@agentmem/core/testing';
import {
  createQdrantMemory,
  documentSparseVector,
  pointId,
  QDRANT_RRF_K,
  querySparseVector,
  uuidv5,
} from '@agentmem/qdrant';
import { QdrantClient } from '@qdrant/js-client-rest';
import { describe, expect, it } from 'vitest';
import { describeWithSpec, unit, useFakeQdrant } from './helpers';

const DIM = 8;

function rec(id: string, overrides: Partial<BackendRecord> = {}): BackendRecord {
  return {
    id,
    namespace: 'ns',
    tenant: '',
    text: `record ${id}`,
    vector: unit(DIM, 1, 0, 0),
    attributes: { kind: 'memory', status: 'active' },
    payload: { id },
    ...overrides,
  };
}

describe('UUIDv5 ids and sparse vectors', () => {
  it('maps ids with RFC 4122 UUIDv5 (checked against the standard DNS example)', () => {
    const dns = Buffer.from('6ba7b8109dad11d180b400c04fd430c8', 'hex');
    expect(uuidv5('www.example.com', dns)).toBe('2ed6657d-e927-568b-95e1-2665a8aea6a2');
    expect(pointId('mem_1')).toBe(pointId('mem_1'));
    expect(pointId('mem_1')).not.toBe(pointId('mem_2'));
    expect(pointId('mem_1')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('builds BM25 sparse vectors from core tokenizer terms with unique, sorted indices', () => {
    const v = documentSparseVector('Deploy to staging only after the staging smoke tests pass')!;
    expect(v.indices.length).toBe(new Set(tokenize('Deploy to staging only after the staging smoke tests pass')).size);
    expect(new Set(v.indices).size).toBe(v.indices.length);
    expect([...v.indices].sort((a, b) => a - b)).toEqual(v.indices);
    expect(v.values.every((x) => x > 0)).toBe(true);
    // A term twice weighs more than once (saturating).
    const twice = documentSparseVector('staging staging')!;
    const once = documentSparseVector('staging')!;
    expect(twice.values[0]).toBeGreaterThan(once.values[0]!);
    expect(twice.values[0]).toBeLessThan(2 * once.values[0]! * 1.5);
    expect(documentSparseVector('the and of')).toBeUndefined();
    expect(querySparseVector('staging STAGING deploy')!.values).toEqual([1, 1]);
  });
});

describeWithSpec('QdrantBackend specifics (fake Qdrant)', () => {
  const ctx = useFakeQdrant();

  it('creates one collection: named dense (Cosine) + sparse bm25 with idf, payload indexes created with wait=true', async () => {
    const b = ctx.backend();
    await b.init({ dimension: DIM });
    const c = ctx.fake.collections.get(b.collection)!;
    expect(c.vectors).toEqual({ dense: { size: DIM, distance: 'Cosine' } });
    expect(c.sparse).toEqual({ bm25: { modifier: 'idf' } });
    const indexed = Object.keys(c.payloadSchema);
    for (const f of [
      'record_id',
      'namespace',
      'tenant',
      'attributes.kind',
      'attributes.status',
      'attributes.type',
      'attributes.contentHash',
      'attributes.memoryId',
      'attributes.createdAt',
    ]) {
      expect(indexed).toContain(f);
    }
    const indexRequests = ctx.fake.requests.filter(
      (r) => r.operationId === 'create_field_index' && r.path.includes(b.collection),
    );
    expect(indexRequests.every((r) => r.query.wait === 'true')).toBe(true);
    // Opening again creates nothing new.
    const before = ctx.fake.requests.length;
    const again = ctx.backend({ collection: b.collection });
    await again.init({ dimension: DIM });
    expect(ctx.fake.requests.slice(before).map((r) => r.operationId)).toEqual(['collection_exists', 'get_collection']);
    await b.close();
  });

  it('multi-tenant deployments get an is_tenant index on tenant', async () => {
    const b = ctx.backend({ tenantIndex: true });
    await b.init({ dimension: DIM });
    expect(ctx.fake.collections.get(b.collection)!.payloadSchema.tenant).toEqual({
      data_type: 'keyword',
      params: { type: 'keyword', is_tenant: true },
    });
  });

  it('stores points under UUIDv5 ids with the original id in the payload; omits absent vectors', async () => {
    const b = ctx.backend();
    await b.init({ dimension: DIM });
    await b.upsert([rec('a/b:c', { text: 'hello world' }), rec('h1', { text: '', vector: undefined })]);
    const c = ctx.fake.collections.get(b.collection)!;
    const p = [...c.points.values()].find((x) => x.payload.record_id === 'a/b:c')!;
    expect(p.id).toBe(pointId('a/b:c'));
    expect(p.payload).toMatchObject({
      namespace: 'ns',
      tenant: '',
      text: 'hello world',
      attributes: { kind: 'memory' },
    });
    const upsert = ctx.fake.requestsFor('upsert_points').at(-1)!.body as {
      points: { vector: Record<string, unknown> }[];
    };
    expect(Object.keys(upsert.points[0]!.vector).sort()).toEqual(['bm25', 'dense']);
    expect(upsert.points[1]!.vector).toEqual({});
    expect((await b.get(['h1']))[0]).toMatchObject({ id: 'h1', text: '' });
    expect((await b.get(['h1']))[0]!.vector).toBeUndefined();
  });

  it('refuses an existing collection of another dimension, naming both', async () => {
    const b = ctx.backend();
    await b.init({ dimension: DIM });
    const other = ctx.backend({ collection: b.collection });
    const error = await other.init({ dimension: 384 }).catch((e: unknown) => e);
    expect(AgentMemoryError.hasCode(error, 'DIMENSION_MISMATCH')).toBe(true);
    expect((error as Error).message).toContain(`"${b.collection}"`);
    expect((error as Error).message).toMatch(/holds 8-dimensional vectors; this embedder makes 384/);
  });

  it('refuses a collection built with another embedder, naming both (createQdrantMemory)', async () => {
    const collection = `embedder_check_${Date.now()}`;
    const first = await createQdrantMemory({
      url: ctx.fake.url,
      collection,
      checkCompatibility: false,
      embedder: new FakeEmbedder({ dimension: 16 }),
    });
    await first.remember({ content: 'Qdrant keeps this memory', type: 'user' });
    const otherEmbedder = new HashingEmbedder({ dimension: 16 });
    const error = await createQdrantMemory({
      url: ctx.fake.url,
      collection,
      checkCompatibility: false,
      embedder: otherEmbedder,
    }).catch((e: unknown) => e);
    expect(AgentMemoryError.hasCode(error, 'EMBEDDER_MISMATCH')).toBe(true);
    expect((error as Error).message).toContain(first.embedder.id);
    expect((error as Error).message).toContain(otherEmbedder.id);
    const wrongDim = await createQdrantMemory({
      url: ctx.fake.url,
      collection,
      checkCompatibility: false,
      embedder: new FakeEmbedder({ dimension: 32 }),
    }).catch((e: unknown) => e);
    expect(AgentMemoryError.isInstance(wrongDim)).toBe(true);
    expect((wrongDim as Error).message).toMatch(/16/);
    expect((wrongDim as Error).message).toMatch(/32/);
    // The embedder id lives in the collection's own metadata.
    expect(ctx.fake.collections.get(collection)!.metadata['agentmem:embedder.id']).toBe(first.embedder.id);
  });

  it('refuses a server that silently drops collection metadata (so the embedder check cannot pass by accident)', async () => {
    const client = new QdrantClient({ url: ctx.fake.url, checkCompatibility: false });
    // An older server ignores the unknown `metadata` field of an update and answers ok.
    const old = Object.assign(Object.create(client) as QdrantClient, {
      updateCollection: async () => true,
    });
    const b = ctx.backend({ client: old });
    await b.init({ dimension: DIM });
    const error = await b.setMeta('embedder.id', 'some-embedder').catch((e: unknown) => e);
    expect(AgentMemoryError.hasCode(error, 'BACKEND_ERROR')).toBe(true);
    expect((error as Error).message).toMatch(/collection metadata.*Upgrade the server/);
  });

  it('refuses a collection that is not an agentmem collection', async () => {
    const client = new QdrantClient({ url: ctx.fake.url, checkCompatibility: false });
    await client.createCollection('foreign', { vectors: { size: DIM, distance: 'Cosine' } });
    const error = await ctx
      .backend({ collection: 'foreign' })
      .init({ dimension: DIM })
      .catch((e: unknown) => e);
    expect(AgentMemoryError.hasCode(error, 'INVALID_INPUT')).toBe(true);
    expect((error as Error).message).toMatch(/not an agentmem collection/);
  });

  it('works with an injected client', async () => {
    const client = new QdrantClient({ url: ctx.fake.url, checkCompatibility: false });
    const b = ctx.backend({ client, url: 'http://unused.invalid:1' });
    await b.init({ dimension: DIM });
    await b.upsert([rec('x')]);
    expect(await b.count({ tenant: '' })).toBe(1);
  });

  it('hybrid search: prefetch dense + sparse fused with RRF server-side, scores on core scale, signals reported', async () => {
    const b = ctx.backend();
    await b.init({ dimension: DIM });
    await b.upsert([
      rec('h1', { text: 'postgres database settings', vector: unit(DIM, 0, 1, 0) }),
      rec('h2', { text: 'unrelated words here', vector: unit(DIM, 1, 0, 0) }),
      rec('h3', { text: 'postgres replication lag', vector: unit(DIM, 1, 1, 0) }),
      rec('h4', { text: 'postgres', vector: unit(DIM, 0, 0, 1), tenant: 'other' }),
    ]);
    const filter: RecordFilter = { tenant: '', namespaces: ['ns'] };
    const vector = unit(DIM, 1, 0.2, 0);
    const hits = await b.search({
      mode: 'hybrid',
      vector,
      text: 'postgres database',
      filter,
      k: 10,
      weights: { dense: 1, keyword: 1 },
    });
    const request = ctx.fake.requestsFor('query_batch_points').at(-1)!.body as { searches: Record<string, unknown>[] };
    const fused = request.searches[0]!;
    expect(fused.query).toEqual({ rrf: { k: QDRANT_RRF_K } });
    expect((fused.prefetch as { using: string }[]).map((p) => p.using)).toEqual(['dense', 'bm25']);
    expect(fused.filter).toBeDefined();
    // The scope filter rides on every prefetch too (Qdrant would merge the top-level one in; this does not depend on it).
    expect(
      (fused.prefetch as Record<string, unknown>[]).every(
        (p) => JSON.stringify(p.filter) === JSON.stringify(fused.filter),
      ),
    ).toBe(true);

    const dense = await b.search({ mode: 'dense', vector, filter, k: 10 });
    const keyword = await b.search({ mode: 'keyword', text: 'postgres database', filter, k: 10 });
    const expected = fuseRrf(dense, keyword, { dense: 1, keyword: 1 }, 10);
    expect(hits.map((h) => h.record.id)).toEqual(expected.map((h) => h.record.id));
    hits.forEach((h, i) => {
      expect(h.score).toBeCloseTo(expected[i]!.score, 6);
      expect(h.dense).toEqual(expected[i]!.dense);
      expect(h.keyword?.rank).toBe(expected[i]!.keyword?.rank);
      expect(h.keyword?.score ?? 0).toBeCloseTo(expected[i]!.keyword?.score ?? 0, 5);
    });
    expect(hits.some((h) => h.record.tenant !== '')).toBe(false);
  });

  it("hybrid search returns k of the caller's records even when other tenants rank higher", async () => {
    const b = ctx.backend();
    await b.init({ dimension: DIM });
    const others = Array.from({ length: 30 }, (_, i) =>
      rec(`o${i}`, { tenant: 'other', text: 'postgres database tuning', vector: unit(DIM, 1, 0.01 * i, 0) }),
    );
    const mine = Array.from({ length: 3 }, (_, i) =>
      rec(`m${i}`, { tenant: 'me', text: `postgres notes ${i}`, vector: unit(DIM, 0.2, 1, i) }),
    );
    await b.upsert([...others, ...mine]);
    const hits = await b.search({
      mode: 'hybrid',
      vector: unit(DIM, 1, 0, 0),
      text: 'postgres database',
      filter: { tenant: 'me' },
      k: 3,
      weights: { dense: 1, keyword: 1 },
    });
    expect(hits.map((h) => h.record.id).sort()).toEqual(['m0', 'm1', 'm2']);
  });

  it('hybrid search with unequal weights fuses with core weighted RRF (Qdrant weights mean something else)', async () => {
    const b = ctx.backend();
    await b.init({ dimension: DIM });
    await b.upsert([
      rec('w1', { text: 'alpha beta', vector: unit(DIM, 1, 0, 0) }),
      rec('w2', { text: 'beta gamma', vector: unit(DIM, 0, 1, 0) }),
      rec('w3', { text: 'gamma', vector: unit(DIM, 0.5, 0.5, 0) }),
    ]);
    const filter: RecordFilter = { tenant: '' };
    const vector = unit(DIM, 1, 0.1, 0);
    const weights = { dense: 0.25, keyword: 1 };
    const hits = await b.search({ mode: 'hybrid', vector, text: 'gamma', filter, k: 5, weights });
    const dense = await b.search({ mode: 'dense', vector, filter, k: 5 });
    const keyword = await b.search({ mode: 'keyword', text: 'gamma', filter, k: 5 });
    expect(hits).toEqual(fuseRrf(dense, keyword, weights, 5));
  });

  it('hybrid search leaves dense hits under minDenseScore out of the fusion, in both fusion paths', async () => {
    const b = ctx.backend();
    await b.init({ dimension: DIM });
    await b.upsert([
      rec('close', { text: 'nothing shared', vector: unit(DIM, 1, 0.1, 0) }),
      rec('far', { text: 'nothing either', vector: unit(DIM, 0, 0, 1) }),
      rec('word', { text: 'postgres', vector: unit(DIM, 0, 1, 0) }),
    ]);
    const filter: RecordFilter = { tenant: '' };
    for (const weights of [
      { dense: 1, keyword: 1 },
      { dense: 0.25, keyword: 1 },
    ]) {
      const hits = await b.search({ mode: 'hybrid', vector: unit(DIM, 1, 0, 0), text: 'postgres', filter, k: 5, weights, minDenseScore: 0.5 });
      expect(hits.map((h) => h.record.id).sort(), JSON.stringify(weights)).toEqual(['close', 'word']);
      expect(hits.find((h) => h.record.id === 'word')?.dense).toBeUndefined();
    }
  });

  it('keyword search weighs rare terms higher (idf over the collection)', async () => {
    const b = ctx.backend();
    await b.init({ dimension: DIM });
    await b.upsert([
      rec('r1', { text: 'common words rare' }),
      rec('r2', { text: 'common words' }),
      rec('r3', { text: 'common thing' }),
      rec('r4', { text: 'common again' }),
    ]);
    const hits = await b.search({ mode: 'keyword', text: 'common rare', filter: { tenant: '' }, k: 10 });
    expect(hits[0]!.record.id).toBe('r1');
    expect(hits).toHaveLength(4);
  });

  it('filters agree with matchesFilter on random records and conditions', async () => {
    const b = ctx.backend();
    await b.init({ dimension: DIM });
    let seed = 7;
    const rand = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
    const values = ['a', 'b', 'c', 1, 2, 2.5, true, false, null] as const;
    const records: BackendRecord[] = [];
    for (let i = 0; i < 80; i++) {
      const attributes: BackendRecord['attributes'] = {};
      for (const key of ['x', 'y', 'z']) if (rand() < 0.7) attributes[key] = pick(values);
      records.push(rec(`f${i}`, { attributes, tenant: pick(['', 't1']), namespace: pick(['n1', 'n2']) }));
    }
    await b.upsert(records);
    for (let i = 0; i < 60; i++) {
      const where: Record<string, unknown> = {};
      for (const key of ['x', 'y', 'z']) {
        if (rand() < 0.5) continue;
        const kind = pick(['eq', 'in', 'notIn', 'ne', 'range'] as const);
        if (kind === 'eq') where[key] = pick(values);
        else if (kind === 'in') where[key] = { in: [pick(values), pick(values)] };
        else if (kind === 'notIn') where[key] = { notIn: [pick(values), pick(values)] };
        else if (kind === 'ne') where[key] = { ne: pick(values) };
        else where[key] = rand() < 0.5 ? { gte: 1, lt: 2.5 } : { gt: 1 };
      }
      const filter = {
        tenant: pick(['', 't1', null]),
        namespaces: rand() < 0.3 ? ['n1'] : undefined,
        where,
      } as RecordFilter;
      const expected = records
        .filter((r) => matchesFilter(r, filter))
        .map((r) => r.id)
        .sort();
      const page = await b.scan({ filter, limit: 1000 });
      expect(
        page.records.map((r) => r.id),
        JSON.stringify(filter),
      ).toEqual(expected);
      expect(await b.count(filter)).toBe(expected.length);
    }
  });

  it('scan re-applies the filter on later pages and continues from a cursor on another instance', async () => {
    const b = ctx.backend();
    await b.init({ dimension: DIM });
    await b.upsert(Array.from({ length: 30 }, (_, i) => rec(`s${String(i).padStart(2, '0')}`, { vector: undefined })));
    const filter: RecordFilter = { tenant: '', where: { status: 'active' } };
    const first = await b.scan({ filter, limit: 10 });
    expect(first.records.map((r) => r.id)[0]).toBe('s00');
    await b.patch([{ id: 's15', attributes: { status: 'pruned' } }]);
    const second = await b.scan({ filter, limit: 10, cursor: first.cursor });
    expect(second.records.map((r) => r.id)).not.toContain('s15');
    const other = ctx.backend({ collection: b.collection });
    await other.init({ dimension: DIM });
    const third = await other.scan({ filter, limit: 10, cursor: second.cursor });
    expect(third.records.map((r) => r.id)[0]).toBe('s20');
    expect(third.cursor).toBeUndefined();
    await expect(b.scan({ filter, cursor: 'garbage' })).rejects.toSatisfy((e: unknown) =>
      AgentMemoryError.hasCode(e, 'INVALID_INPUT'),
    );
  });

  it('namespaces lists every tenant and namespace with counts (facets page past the default 10)', async () => {
    const b = ctx.backend();
    await b.init({ dimension: DIM });
    const records = Array.from({ length: 24 }, (_, i) =>
      rec(`ns${i}`, { namespace: `n${String(i % 12).padStart(2, '0')}`, tenant: i < 12 ? 'a' : 'b' }),
    );
    await b.upsert(records);
    const all = await b.namespaces();
    expect(all).toHaveLength(24);
    expect(all[0]).toEqual({ namespace: 'n00', tenant: 'a', count: 1 });
    expect((await b.namespaces({ tenant: 'b' })).map((n) => n.namespace)).toEqual(
      Array.from({ length: 12 }, (_, i) => `n${String(i).padStart(2, '0')}`),
    );
  });

  it('refuses bad input before sending anything', async () => {
    const b = ctx.backend();
    await b.init({ dimension: DIM });
    const before = ctx.fake.requests.length;
    await expect(b.upsert([rec('ok'), rec('bad', { attributes: { 'a.b': 1 } })])).rejects.toSatisfy((e: unknown) =>
      AgentMemoryError.hasCode(e, 'INVALID_INPUT'),
    );
    await expect(b.upsert([rec('v', { vector: new Float32Array(3) })])).rejects.toSatisfy((e: unknown) =>
      AgentMemoryError.hasCode(e, 'DIMENSION_MISMATCH'),
    );
    expect(ctx.fake.requests.length).toBe(before);
  });
});
