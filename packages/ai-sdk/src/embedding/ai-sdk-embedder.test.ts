import { AgentMemory, AgentMemoryError, InMemoryBackend } from '@agentmem/core';
import { MockEmbeddingModelV3, MockRerankingModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { aiSdkEmbedder, createAiSdkEmbedder } from './ai-sdk-embedder';
import { aiSdkReranker } from './ai-sdk-reranker';

/** A deterministic bag-of-letters vector, so that similar texts get similar vectors. */
function vectorOf(text: string, dimension: number): number[] {
  const v = new Array<number>(dimension).fill(0);
  for (const ch of text.toLowerCase()) if (ch >= 'a' && ch <= 'z') v[(ch.charCodeAt(0) - 97) % dimension]! += 1;
  return v;
}

function embeddingModel(options: { dimension?: number; maxEmbeddingsPerCall?: number } = {}) {
  const dimension = options.dimension ?? 26;
  return new MockEmbeddingModelV3({
    provider: 'mock-provider',
    modelId: 'mock-embed-1',
    maxEmbeddingsPerCall: options.maxEmbeddingsPerCall ?? 100,
    // The function form: the array form answers call n with element n (off by one).
    doEmbed: async ({ values }) => ({
      embeddings: values.map((v) => vectorOf(v, dimension)),
      usage: { tokens: values.length * 3 },
      warnings: [],
    }),
  });
}

describe('aiSdkEmbedder', () => {
  it('batches by maxEmbeddingsPerCall, keeps order and reports tokens and calls', async () => {
    const model = embeddingModel({ maxEmbeddingsPerCall: 2 });
    const embedder = aiSdkEmbedder(model, { dimension: 26 });
    const texts = ['alpha', 'beta', 'gamma', 'delta', 'epsilon'];
    const result = await embedder.embed(texts, { purpose: 'document' });

    expect(model.doEmbedCalls.map((c) => c.values)).toEqual([['alpha', 'beta'], ['gamma', 'delta'], ['epsilon']]);
    expect(result.embeddings.map((e) => Array.from(e))).toEqual(texts.map((t) => vectorOf(t, 26)));
    expect(result.embeddings[0]).toBeInstanceOf(Float32Array);
    expect(result.usage).toEqual({ tokens: 15, calls: 3 });
  });

  it('has a stable id from provider and model id, and makes no call for no texts', async () => {
    const model = embeddingModel();
    expect(aiSdkEmbedder(model, { dimension: 26 }).id).toBe('ai-sdk:mock-provider:mock-embed-1');
    expect(aiSdkEmbedder(model, { dimension: 26, id: 'openai:small@512' }).id).toBe('openai:small@512');
    expect(await aiSdkEmbedder(model, { dimension: 26 }).embed([], { purpose: 'query' })).toEqual({
      embeddings: [],
      usage: { tokens: 0, calls: 0 },
    });
    expect(model.doEmbedCalls).toHaveLength(0);
  });

  it('passes provider options per purpose', async () => {
    const model = embeddingModel();
    const embedder = aiSdkEmbedder(model, {
      dimension: 26,
      providerOptions: {
        document: { mock: { inputType: 'search_document' } },
        query: { mock: { inputType: 'search_query' } },
      },
    });
    await embedder.embed(['a'], { purpose: 'document' });
    await embedder.embed(['b'], { purpose: 'query' });
    expect(model.doEmbedCalls.map((c) => c.providerOptions)).toEqual([
      { mock: { inputType: 'search_document' } },
      { mock: { inputType: 'search_query' } },
    ]);
  });

  it('refuses a missing dimension and vectors of the wrong length with clear errors', async () => {
    expect(() => aiSdkEmbedder(embeddingModel(), {} as never)).toThrow(/needs \{ dimension \}/);
    const embedder = aiSdkEmbedder(embeddingModel({ dimension: 8 }), { dimension: 26 });
    const error = await embedder.embed(['a'], { purpose: 'query' }).catch((e) => e);
    expect(AgentMemoryError.hasCode(error, 'DIMENSION_MISMATCH')).toBe(true);
    expect(String(error)).toMatch(/returned 8 dimensions .* not the configured 26/);
  });

  it('probes the dimension once with createAiSdkEmbedder', async () => {
    const model = embeddingModel({ dimension: 12 });
    const embedder = await createAiSdkEmbedder(model);
    expect(embedder.dimension).toBe(12);
    expect(model.doEmbedCalls).toHaveLength(1);
  });

  it('works as the embedder of an AgentMemory', async () => {
    const model = embeddingModel({ maxEmbeddingsPerCall: 2 });
    const memory = new AgentMemory({
      backend: new InMemoryBackend(),
      embedder: aiSdkEmbedder(model, { dimension: 26 }),
    });
    await memory.rememberMany([
      { content: 'The user prefers pnpm', type: 'user' },
      { content: 'Deploys run on Fly.io', type: 'project' },
      { content: 'Docs live in the wiki', type: 'reference' },
    ]);
    const [top] = await memory.recall('which package manager: pnpm?', { k: 1 });
    expect(top!.memory.content).toBe('The user prefers pnpm');
    expect(memory.usage.tokens).toBeGreaterThan(0);
  });
});

describe("cancelled through the caller's AbortSignal", () => {
  /** Models that answer only when cancelled, as a provider's fetch does: with the signal's AbortError. */
  const untilAborted = (signal: AbortSignal | undefined) =>
    new Promise<never>((_, reject) => {
      const fail = () => reject(new DOMException('This operation was aborted', 'AbortError'));
      if (signal?.aborted) fail();
      signal?.addEventListener('abort', fail);
    });

  it('is ABORTED for an embedding and a rerank, and the AI SDK does not retry it', async () => {
    let embedCalls = 0;
    const model = new MockEmbeddingModelV3({
      provider: 'mock-provider',
      modelId: 'mock-embed-1',
      maxEmbeddingsPerCall: 100,
      doEmbed: ({ abortSignal }) => {
        embedCalls++;
        return untilAborted(abortSignal);
      },
    });
    const cancel = new AbortController();
    const call = aiSdkEmbedder(model, { dimension: 26, maxRetries: 2 })
      .embed(['alpha'], { purpose: 'query', abortSignal: cancel.signal })
      .catch((e) => e);
    cancel.abort();
    const error = await call;
    expect(AgentMemoryError.hasCode(error, 'ABORTED')).toBe(true);
    expect(error.message).toBe(
      "Embedding with ai-sdk:mock-provider:mock-embed-1 was cancelled by the caller's signal.",
    );
    expect(embedCalls).toBe(1);

    const reranker = new MockRerankingModelV3({
      provider: 'mock-provider',
      modelId: 'mock-rerank',
      doRerank: ({ abortSignal }) => untilAborted(abortSignal),
    });
    const stop = new AbortController();
    const rerank = aiSdkReranker(reranker)
      .rerank('q', [{ id: 'a', text: 'doc' }], { abortSignal: stop.signal })
      .catch((e) => e);
    stop.abort(new Error('user closed the chat'));
    const rerankError = await rerank;
    expect(AgentMemoryError.hasCode(rerankError, 'ABORTED')).toBe(true);
    expect(rerankError.message).toBe(
      "Reranking with ai-sdk:mock-provider:mock-rerank was cancelled by the caller's signal (user closed the chat).",
    );
  });

  it('leaves other failures as the provider threw them', async () => {
    const model = new MockEmbeddingModelV3({
      provider: 'mock-provider',
      modelId: 'mock-embed-1',
      doEmbed: async () => {
        throw new Error('quota exceeded');
      },
    });
    const error = await aiSdkEmbedder(model, { dimension: 26, maxRetries: 0 })
      .embed(['alpha'], { purpose: 'query', abortSignal: new AbortController().signal })
      .catch((e) => e);
    expect(error.message).toBe('quota exceeded');
    expect(AgentMemoryError.isInstance(error)).toBe(false);
  });
});

describe('aiSdkReranker', () => {
  it('maps the AI SDK ranking to indexes into the given documents', async () => {
    const model = new MockRerankingModelV3({
      provider: 'mock-provider',
      modelId: 'mock-rerank',
      doRerank: async ({ documents, query }) => {
        const values = documents.values as string[];
        const ranking = values
          .map((text, index) => ({ index, relevanceScore: text.includes(query) ? 0.9 : 0.1 }))
          .sort((a, b) => b.relevanceScore - a.relevanceScore);
        return { ranking };
      },
    });
    const reranker = aiSdkReranker(model);
    expect(reranker.id).toBe('ai-sdk:mock-provider:mock-rerank');
    const result = await reranker.rerank('pnpm', [
      { id: 'a', text: 'Deploys run on Fly.io' },
      { id: 'b', text: 'The user prefers pnpm' },
    ]);
    expect(result.ranking).toEqual([
      { index: 1, score: 0.9 },
      { index: 0, score: 0.1 },
    ]);
    expect(await reranker.rerank('x', [])).toEqual({ ranking: [], usage: { calls: 0 } });
  });
});
