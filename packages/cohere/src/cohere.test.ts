import { createServer } from 'node:net';
import { AgentMemory, AgentMemoryError, InMemoryBackend } from '@agentmem/core';
import { CohereError, type CohereClientV2 } from 'cohere-ai';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeCohereServer } from '../../../test/cohere/fake-cohere-server';
import { callCohere, cohereEmbedder, cohereReranker } from './index';

let server: FakeCohereServer;
beforeAll(async () => {
  server = await new FakeCohereServer().start();
});
afterAll(() => server.stop());
beforeEach(() => server.reset());

const fast = { retries: 2, minDelayMs: 5, maxDelayMs: 200 };
const embedder = (extra: Parameters<typeof cohereEmbedder>[0] = {}) =>
  cohereEmbedder({ apiKey: 'test-key', baseUrl: server.url, model: 'embed-english-light-v3.0', retry: fast, ...extra });
const reranker = () => cohereReranker({ apiKey: 'test-key', baseUrl: server.url, retry: fast });
const memoryWith = (extra: Partial<ConstructorParameters<typeof AgentMemory>[0]> = {}) =>
  new AgentMemory({ backend: new InMemoryBackend(), embedder: embedder(), ...extra });

describe('cohereEmbedder', () => {
  it('embeds stored memories as search_document and queries as search_query', async () => {
    const memory = memoryWith();
    await memory.remember({ content: 'The staging database is PostgreSQL 16', type: 'project' });
    await memory.recall('which database is on staging?');
    const inputTypes = server.requests.filter((r) => r.path === '/v2/embed').map((r) => r.body.input_type);
    expect(inputTypes).toEqual(['search_document', 'search_query']);
    expect(server.requests[0]!.body).toMatchObject({ model: 'embed-english-light-v3.0', embedding_types: ['float'] });
  });

  it('has a stable id of provider, model and dimension, and honours outputDimension', async () => {
    expect(embedder().id).toBe('cohere:embed-english-light-v3.0:384');
    const v4 = cohereEmbedder({ apiKey: 'test-key', baseUrl: server.url, outputDimension: 256 });
    expect(v4.id).toBe('cohere:embed-v4.0:256');
    const { embeddings } = await v4.embed(['hello'], { purpose: 'document' });
    expect(embeddings[0]).toHaveLength(256);
    expect(server.requests.at(-1)!.body.output_dimension).toBe(256);
    expect(() => cohereEmbedder({ model: 'my-custom-model' })).toThrow(/pass its vector size/);
  });

  it('batches across the 96-text limit, keeps order and reports billed tokens', async () => {
    const texts = Array.from({ length: 200 }, (_, i) => `memory number ${i}`);
    const e = embedder();
    const result = await e.embed(texts, { purpose: 'document' });
    expect(server.requests.map((r) => (r.body.texts as string[]).length)).toEqual([96, 96, 8]);
    expect(result.embeddings).toHaveLength(200);
    const single = await e.embed(['memory number 150'], { purpose: 'document' });
    expect(Array.from(result.embeddings[150]!)).toEqual(Array.from(single.embeddings[0]!));
    expect(result.usage).toEqual({ tokens: 600, calls: 3 });
    const memory = memoryWith();
    await memory.remember({ content: 'one two three', type: 'user' });
    expect(memory.usage.tokens).toBe(3);
  });

  it('says to check the API key on 401 and 403, without retrying', async () => {
    const bad = cohereEmbedder({
      apiKey: 'wrong',
      baseUrl: server.url,
      model: 'embed-english-light-v3.0',
      retry: fast,
    });
    const error = await bad.embed(['x'], { purpose: 'query' }).catch((e) => e);
    expect(AgentMemoryError.hasCode(error, 'AUTHENTICATION')).toBe(true);
    expect(error.message).toMatch(/check your Cohere API key/i);
    expect(server.requests).toHaveLength(1);
    server.failNext({ status: 403, body: { message: 'forbidden for this key' } });
    await expect(embedder().embed(['x'], { purpose: 'query' })).rejects.toThrow(/forbidden for this key.*API key/i);
  });

  it('honours Retry-After on 429 within the bound, and gives up when asked to wait longer', async () => {
    server.failNext({ status: 429, headers: { 'retry-after': '0.05' }, body: { message: 'too many requests' } });
    const { embeddings } = await embedder().embed(['after the wait'], { purpose: 'document' });
    expect(embeddings).toHaveLength(1);
    expect(server.requests).toHaveLength(2);
    server.requests.length = 0;
    server.failNext({ status: 429, headers: { 'retry-after': '120' }, body: { message: 'slow down' } });
    const error = await embedder()
      .embed(['x'], { purpose: 'document' })
      .catch((e) => e);
    expect(AgentMemoryError.hasCode(error, 'RATE_LIMITED')).toBe(true);
    expect(server.requests).toHaveLength(1);
  });

  it('retries 5xx, then fails with the service reason; other 4xx fail at once', async () => {
    server.failNext({ status: 503 }, { status: 500 });
    await embedder().embed(['eventually'], { purpose: 'document' });
    expect(server.requests).toHaveLength(3);
    server.requests.length = 0;
    server.failNext({ status: 502 }, { status: 502 }, { status: 502, body: { message: 'bad gateway upstream' } });
    const error = await embedder()
      .embed(['never'], { purpose: 'document' })
      .catch((e) => e);
    expect(AgentMemoryError.hasCode(error, 'BACKEND_UNAVAILABLE')).toBe(true);
    expect(error.message).toMatch(/bad gateway upstream/);
    expect(server.requests).toHaveLength(3);
    server.requests.length = 0;
    server.failNext({ status: 400, body: { message: 'invalid request: texts too long' } });
    await expect(embedder().embed(['x'], { purpose: 'document' })).rejects.toThrow(/texts too long/);
    expect(server.requests).toHaveLength(1);
  });

  it('turns a timeout into a TIMEOUT error of ours', async () => {
    server.failNext({ status: 200, delayMs: 400 }, { status: 200, delayMs: 400 }, { status: 200, delayMs: 400 });
    const slow = embedder({ timeoutMs: 100, retry: { retries: 0 } });
    const error = await slow.embed(['x'], { purpose: 'document' }).catch((e) => e);
    expect(AgentMemoryError.hasCode(error, 'TIMEOUT')).toBe(true);
    expect(error.message).toMatch(/timed out/);
  });

  it('also maps the plain CohereError("timeout") some cohere-ai releases throw to TIMEOUT, after retrying', async () => {
    let calls = 0;
    const client = {
      embed: async () => {
        calls++;
        throw new CohereError({ message: 'timeout' });
      },
    } as unknown as CohereClientV2;
    const error = await cohereEmbedder({
      client,
      model: 'embed-english-light-v3.0',
      retry: { retries: 1, minDelayMs: 1 },
    })
      .embed(['x'], { purpose: 'document' })
      .catch((e) => e);
    expect(AgentMemoryError.hasCode(error, 'TIMEOUT')).toBe(true);
    expect(calls).toBe(2);
  });

  it('stores nothing when one batch of a larger write fails', async () => {
    const memory = memoryWith({ embedder: embedder({ retry: { retries: 0 } }) });
    await memory.remember({ content: 'an existing fact', type: 'project' });
    server.failNext('pass', { status: 400, body: { message: 'invalid text in batch' } });
    const inputs = Array.from({ length: 150 }, (_, i) => ({
      content: `fact ${i} about the system`,
      type: 'project' as const,
    }));
    await expect(memory.rememberMany(inputs)).rejects.toThrow(/invalid text in batch/);
    expect((await memory.stats()).total).toBe(1);
  });
});

describe("cancelled through the caller's AbortSignal", () => {
  it('is ABORTED and never retried when the signal aborts a request in flight', async () => {
    server.failNext({ status: 200, delayMs: 2_000 });
    const cancel = new AbortController();
    const call = embedder()
      .embed(['x'], { purpose: 'document', abortSignal: cancel.signal })
      .catch((e) => e);
    await vi.waitFor(() => expect(server.requests).toHaveLength(1));
    cancel.abort();
    const error = await call;
    expect(AgentMemoryError.hasCode(error, 'ABORTED')).toBe(true);
    expect(error.message).toBe("Cohere embed was cancelled by the caller's signal.");
    // The policy had two retries left: none was used.
    expect(server.requests).toHaveLength(1);
    const rerank = await reranker()
      .rerank('q', [{ id: 'a', text: 'doc' }], { abortSignal: cancel.signal })
      .catch((e) => e);
    expect(AgentMemoryError.hasCode(rerank, 'ABORTED')).toBe(true);
    expect(server.requests).toHaveLength(1); // an aborted signal sends nothing
  });

  it('ends a backoff wait at once when the signal aborts during it', async () => {
    let attempts = 0;
    let firstFailure: () => void = () => {};
    const failed = new Promise<void>((resolve) => {
      firstFailure = resolve;
    });
    const cancel = new AbortController();
    let settled = false;
    const call = callCohere(
      'embed',
      async () => {
        attempts++;
        firstFailure();
        throw new CohereError({ message: 'unavailable', statusCode: 503 });
      },
      // A wait no test would sit through: only the abort can end it.
      { retries: 3, minDelayMs: 600_000, maxDelayMs: 600_000 },
      server.url,
      cancel.signal,
    )
      .catch((e) => e)
      .finally(() => {
        settled = true;
      });
    await failed;
    await new Promise((resolve) => setImmediate(resolve)); // the 503 is handled: the call is waiting
    expect(settled).toBe(false);
    cancel.abort(new Error('user closed the chat'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(true);
    const error = await call;
    expect(AgentMemoryError.hasCode(error, 'ABORTED')).toBe(true);
    expect(error.message).toBe("Cohere embed was cancelled by the caller's signal (user closed the chat).");
    expect(attempts).toBe(1);
  });
});

/** A local URL where nothing listens (a port that was free a moment ago). */
async function closedUrl(): Promise<string> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return `http://127.0.0.1:${port}`;
}

describe('without a key, and without a connection', () => {
  const saved = process.env.CO_API_KEY;
  afterEach(() => {
    if (saved === undefined) delete process.env.CO_API_KEY;
    else process.env.CO_API_KEY = saved;
  });

  it('says how to set the key before sending anything, when none is given (option or CO_API_KEY)', async () => {
    delete process.env.CO_API_KEY;
    const noKey = { baseUrl: server.url, retry: fast };
    for (const call of [
      () => cohereEmbedder({ ...noKey, model: 'embed-english-light-v3.0' }).embed(['x'], { purpose: 'document' }),
      () => cohereReranker(noKey).rerank('q', [{ id: 'a', text: 'doc' }]),
    ]) {
      const error = await call().catch((e) => e);
      expect(AgentMemoryError.hasCode(error, 'AUTHENTICATION')).toBe(true);
      expect(error.message).toMatch(
        /No Cohere API key: set the CO_API_KEY environment variable .* or pass \{ apiKey \}/,
      );
    }
    expect(server.requests).toHaveLength(0);
    // The variable, read when the embedder is made, is a key like the option.
    process.env.CO_API_KEY = server.apiKey;
    const fromEnv = cohereEmbedder({ ...noKey, model: 'embed-english-light-v3.0' });
    expect((await fromEnv.embed(['x'], { purpose: 'document' })).embeddings).toHaveLength(1);
  });

  it('is BACKEND_UNAVAILABLE naming the URL and the fix when Cohere cannot be reached, after retrying', async () => {
    const url = await closedUrl();
    const offline = cohereEmbedder({ apiKey: 'k', baseUrl: url, model: 'embed-english-light-v3.0', retry: fast });
    const error = await offline.embed(['x'], { purpose: 'document' }).catch((e) => e);
    expect(AgentMemoryError.hasCode(error, 'BACKEND_UNAVAILABLE')).toBe(true);
    expect(error.message).toBe(
      `Cannot reach Cohere at ${url} for embed after 3 attempts (ECONNREFUSED). Check the network connection and that the baseUrl is right, then try again.`,
    );
    const rerank = await cohereReranker({ apiKey: 'k', baseUrl: url, retry: { retries: 0 } })
      .rerank('q', [{ id: 'a', text: 'doc' }])
      .catch((e) => e);
    expect(rerank.message).toMatch(/^Cannot reach Cohere at .* for rerank \(ECONNREFUSED\)/);
  });
});

describe('cohereReranker and the rerank stage of recall', () => {
  const facts = [
    'Deploys to staging happen every Tuesday',
    'Staging uses the eu-west-1 region',
    'The staging database is PostgreSQL 16',
    'Production deploys need two approvals',
  ];

  it('reorders the candidate pool by the rerank service and keeps both scores', async () => {
    const memory = memoryWith({ reranker: reranker() });
    await memory.rememberMany(facts.map((content) => ({ content, type: 'project' as const })));
    // The service prefers the region fact whatever the fused order says.
    server.rerankScore = (_q, doc) => (doc.includes('eu-west-1') ? 0.99 : doc.includes('Tuesday') ? 0.5 : 0.1);
    const results = await memory.recall('staging deploys', { k: 2 });
    expect(results.map((r) => r.memory.content)).toEqual([
      'Staging uses the eu-west-1 region',
      'Deploys to staging happen every Tuesday',
    ]);
    expect(results[0]!.rerankScore).toBe(0.99);
    expect(results[0]!.relevance).toBeGreaterThan(0);
    const rerankCall = server.requests.find((r) => r.path === '/v2/rerank')!;
    expect(rerankCall.body).toMatchObject({ model: 'rerank-v3.5', query: 'staging deploys', top_n: 2 });
    expect((rerankCall.body.documents as string[]).length).toBeGreaterThan(2); // a pool larger than k
  });

  it('is off unless configured, and can be switched off per call', async () => {
    const memory = memoryWith();
    await memory.rememberMany(facts.map((content) => ({ content, type: 'project' as const })));
    const plain = await memory.recall('staging deploys', { k: 2 });
    expect(plain[0]!.rerankScore).toBeUndefined();
    expect(server.requests.some((r) => r.path === '/v2/rerank')).toBe(false);
    const withRerank = memoryWith({ reranker: reranker(), backend: memory.backend });
    const off = await withRerank.recall('staging deploys', { k: 2, reranker: false });
    expect(off.map((r) => r.memory.id)).toEqual(plain.map((r) => r.memory.id));
    expect(server.requests.some((r) => r.path === '/v2/rerank')).toBe(false);
  });

  it('maps rerank failures like embed failures', async () => {
    server.failNext({ status: 401, body: { message: 'invalid api token' } });
    const error = await reranker()
      .rerank('q', [{ id: 'a', text: 'doc' }])
      .catch((e) => e);
    expect(AgentMemoryError.hasCode(error, 'AUTHENTICATION')).toBe(true);
  });
});
