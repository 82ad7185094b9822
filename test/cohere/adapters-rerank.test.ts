import { agentMemoryMiddleware } from '@agentmem/ai-sdk';
import { cohereEmbedder, cohereReranker } from '@agentmem/cohere';
import { AgentMemory, InMemoryBackend } from '@agentmem/core';
import { AgentMemoryRetriever } from '@agentmem/langchain';
import { generateText, wrapLanguageModel } from 'ai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mockChatModel } from '../../packages/ai-sdk/src/testing';
import { FakeCohereServer } from './fake-cohere-server';

let server: FakeCohereServer;
beforeAll(async () => {
  server = await new FakeCohereServer().start();
});
afterAll(() => server.stop());
beforeEach(() => server.reset());

const facts = [
  'Deploys to staging happen every Tuesday',
  'Staging uses the eu-west-1 region',
  'The staging database is PostgreSQL 16',
  'Production deploys need two approvals',
];

/** A store with Cohere's embedder and reranker; the rerank service prefers the region fact, then the database. */
async function rerankedMemory() {
  const options = { apiKey: 'test-key', baseUrl: server.url, retry: { retries: 0 } };
  const memory = new AgentMemory({
    backend: new InMemoryBackend(),
    embedder: cohereEmbedder({ ...options, model: 'embed-english-light-v3.0' }),
    reranker: cohereReranker(options),
  });
  await memory.rememberMany(facts.map((content) => ({ content, type: 'project' as const })));
  server.rerankScore = (_q, doc) => (doc.includes('eu-west-1') ? 0.97 : doc.includes('PostgreSQL') ? 0.6 : 0.05);
  return memory;
}

describe('the rerank stage through the runtime adapters', () => {
  it('LangChain retriever: documents come in the rerank service order and carry both scores', async () => {
    const memory = await rerankedMemory();
    const docs = await new AgentMemoryRetriever({ memory, k: 2 }).invoke('staging deploys');
    expect(docs.map((d) => d.pageContent)).toEqual([
      'Staging uses the eu-west-1 region',
      'The staging database is PostgreSQL 16',
    ]);
    expect(docs[0]!.metadata).toMatchObject({ rerankScore: 0.97 });
    expect(docs[0]!.metadata.relevance).toBeGreaterThan(0);
    expect(server.requests.filter((r) => r.path === '/v2/rerank')).toHaveLength(1);
    // Switched off per retriever through the recall options.
    const plain = await new AgentMemoryRetriever({ memory, k: 2, recall: { reranker: false } }).invoke(
      'staging deploys',
    );
    expect(plain[0]!.metadata.rerankScore).toBeUndefined();
    expect(server.requests.filter((r) => r.path === '/v2/rerank')).toHaveLength(1);
  });

  it('AI SDK middleware: the injected memories follow the rerank service order', async () => {
    const memory = await rerankedMemory();
    const model = mockChatModel();
    const wrapped = wrapLanguageModel({ model, middleware: agentMemoryMiddleware({ memory, k: 2 }) });
    await generateText({ model: wrapped, prompt: 'staging deploys' });
    const system = model.doGenerateCalls[0]!.prompt[0]!.content as string;
    const lines = system.split('\n').filter((l) => l.startsWith('- ['));
    expect(lines).toEqual([
      '- [project] Staging uses the eu-west-1 region',
      '- [project] The staging database is PostgreSQL 16',
    ]);
    expect(server.requests.some((r) => r.path === '/v2/rerank')).toBe(true);
  });
});
