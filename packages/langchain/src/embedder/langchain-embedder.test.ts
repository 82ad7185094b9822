import { AgentMemory, AgentMemoryError, InMemoryBackend } from '@agentmem/core';
import { SyntheticEmbeddings } from '@langchain/core/utils/testing';
import { describe, expect, it, vi } from 'vitest';
import { LangChainEmbedder, langchainEmbedder } from './langchain-embedder';

describe('langchainEmbedder', () => {
  it('wraps LangChain embeddings: documents vs queries, probed dimension, stable id', async () => {
    const embeddings = new SyntheticEmbeddings({ vectorSize: 24 });
    const docs = vi.spyOn(embeddings, 'embedDocuments');
    const query = vi.spyOn(embeddings, 'embedQuery');
    const embedder = await langchainEmbedder(embeddings);
    expect(embedder.dimension).toBe(24);
    expect(embedder.id).toBe('langchain:SyntheticEmbeddings:24');
    query.mockClear();
    const memory = new AgentMemory({ backend: new InMemoryBackend(), embedder });
    await memory.rememberMany([
      { content: 'alpha beta', type: 'user' },
      { content: 'gamma delta', type: 'user' },
    ]);
    expect(docs).toHaveBeenCalledTimes(1);
    expect(docs.mock.calls[0]![0]).toEqual(['alpha beta', 'gamma delta']);
    await memory.recall('alpha beta');
    expect(query).toHaveBeenCalledWith('alpha beta');
    const [top] = await memory.recall('alpha beta', { mode: 'dense' });
    expect(top?.memory.content).toBe('alpha beta'); // SyntheticEmbeddings: same text, same vector
  });

  it('refuses a missing dimension and vectors of the wrong size', async () => {
    const embeddings = new SyntheticEmbeddings({ vectorSize: 8 });
    expect(() => new LangChainEmbedder(embeddings, { dimension: 0 })).toThrow(/dimension/);
    const liar = new LangChainEmbedder(embeddings, { dimension: 16, id: 'liar' });
    const memory = new AgentMemory({ backend: new InMemoryBackend(), embedder: liar });
    await expect(memory.remember({ content: 'x y', type: 'user' })).rejects.toSatisfy((e) =>
      AgentMemoryError.hasCode(e, 'DIMENSION_MISMATCH'),
    );
  });
});
