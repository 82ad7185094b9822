import { AgentMemoryError, type BackendRecord } from '@agentmem/core';
import { QdrantBackend } from '@agentmem/qdrant';
import { expect, it } from 'vitest';
import { describeWithSpec, unit, useFakeQdrant } from './helpers';

const DIM = 4;
const rec = (id: string): BackendRecord => ({
  id,
  namespace: 'ns',
  tenant: '',
  text: `text ${id}`,
  vector: unit(DIM, 1, 0),
  attributes: { kind: 'memory' },
  payload: {},
});

describeWithSpec('QdrantBackend faults: retries, error reasons, partial batches (fake Qdrant)', () => {
  const ctx = useFakeQdrant();

  async function ready(options: Parameters<typeof ctx.backend>[0] = {}) {
    const b = ctx.backend(options);
    await b.init({ dimension: DIM });
    return b;
  }

  it('retries 5xx with backoff, then succeeds', async () => {
    const b = await ready();
    ctx.fake.inject({ match: (r) => r.operationId === 'upsert_points', status: 503, times: 2 });
    const before = ctx.fake.requestsFor('upsert_points').length;
    await b.upsert([rec('a')]);
    expect(ctx.fake.requestsFor('upsert_points').length - before).toBe(3);
    expect(await b.count({ tenant: '' })).toBe(1);
  });

  it('retries 429 (honouring Retry-After) and dropped connections', async () => {
    const b = await ready();
    ctx.fake.inject({
      match: (r) => r.operationId === 'count_points',
      status: 429,
      retryAfter: 0,
      error: 'Too many requests',
    });
    ctx.fake.inject({ match: (r) => r.operationId === 'count_points', drop: true });
    expect(await b.count({ tenant: '' })).toBe(0);
    expect(ctx.fake.requestsFor('count_points').length).toBeGreaterThanOrEqual(3);
  });

  it('retries a timed-out request (a slow server) and reports TIMEOUT when every attempt times out', async () => {
    const b = await ready({ timeoutMs: 150 });
    ctx.fake.inject({ match: (r) => r.operationId === 'count_points', delayMs: 600 });
    expect(await b.count({ tenant: '' })).toBe(0);
    ctx.fake.inject({ match: (r) => r.operationId === 'count_points', delayMs: 600, times: 3 });
    const error = await b.count({ tenant: '' }).catch((e: unknown) => e);
    expect(AgentMemoryError.hasCode(error, 'TIMEOUT')).toBe(true);
    expect((error as AgentMemoryError).details).toMatchObject({ operation: 'count', attempts: 3 });
  });

  it("never retries other 4xx, and the error carries Qdrant's own reason", async () => {
    const b = await ready();
    const reason = 'Wrong input: Payload index for field `attributes.kind` is broken in a specific way';
    ctx.fake.inject({ match: (r) => r.operationId === 'count_points', status: 400, error: reason, times: 5 });
    const before = ctx.fake.requestsFor('count_points').length;
    const error = await b.count({ tenant: '' }).catch((e: unknown) => e);
    expect(ctx.fake.requestsFor('count_points').length - before).toBe(1);
    expect(AgentMemoryError.hasCode(error, 'BACKEND_ERROR')).toBe(true);
    expect((error as Error).message).toContain(reason);
    expect((error as Error).message).not.toMatch(/^Bad Request$/);
    expect((error as AgentMemoryError).details).toMatchObject({ status: 400, reason });
  });

  it('maps 401 to AUTHENTICATION and an unreachable server to BACKEND_UNAVAILABLE', async () => {
    const b = await ready();
    ctx.fake.inject({ status: 401, error: 'Must provide an API key or an Authorization bearer token' });
    await expect(b.count({ tenant: '' })).rejects.toSatisfy((e: unknown) =>
      AgentMemoryError.hasCode(e, 'AUTHENTICATION'),
    );
    const down = new QdrantBackend({
      url: 'http://127.0.0.1:1',
      collection: 'x',
      checkCompatibility: false,
      retry: { retries: 1, minDelayMs: 1, maxDelayMs: 2 },
    });
    const error = await down.init({ dimension: DIM }).catch((e: unknown) => e);
    expect(AgentMemoryError.hasCode(error, 'BACKEND_UNAVAILABLE')).toBe(true);
    expect((error as Error).message).toContain('http://127.0.0.1:1');
  });

  it('refuses a malformed retry policy up front', () => {
    expect(() => ctx.backend({ retry: { retries: -1 } })).toThrow(/retry.retries must be a non-negative integer/);
  });

  it('gives up after the retry budget with the last reason', async () => {
    const b = await ready();
    ctx.fake.inject({
      match: (r) => r.operationId === 'scroll_points',
      status: 500,
      error: 'Service internal error: disk full',
      times: 10,
    });
    const error = await b.scan({ filter: { tenant: '' } }).catch((e: unknown) => e);
    expect(AgentMemoryError.hasCode(error, 'BACKEND_ERROR')).toBe(true);
    expect((error as Error).message).toMatch(/after 3 attempts: Service internal error: disk full \(HTTP 500\)/);
  });

  it('a batch upsert that fails midway reports exactly what was written', async () => {
    const b = await ready({ batchSize: 2 });
    let upserts = 0;
    ctx.fake.inject({
      match: (r) => r.operationId === 'upsert_points' && ++upserts === 2,
      status: 400,
      error: 'Wrong input: injected',
    });
    const error = await b.upsert(['a', 'b', 'c', 'd', 'e'].map(rec)).catch((e: unknown) => e);
    expect(AgentMemoryError.hasCode(error, 'BACKEND_ERROR')).toBe(true);
    expect((error as AgentMemoryError).details).toMatchObject({
      written: ['a', 'b'],
      unconfirmed: ['c', 'd'],
      notAttempted: ['e'],
    });
    expect((error as Error).message).toMatch(/2 of 5 records were written/);
    const stored = (await b.scan({ filter: { tenant: '' } })).records.map((r) => r.id);
    expect(stored).toEqual(['a', 'b']);
  });
});
