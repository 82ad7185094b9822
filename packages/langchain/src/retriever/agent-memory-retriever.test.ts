import { AgentMemory, InMemoryBackend } from '@agentmem/core';
import { Document } from '@langchain/core/documents';
import { RunnableLambda } from '@langchain/core/runnables';
import { describe, expect, it } from 'vitest';
import { AgentMemoryRetriever } from './agent-memory-retriever';

describe('AgentMemoryRetriever', () => {
  it('returns documents with id, type, importance, score and branch, and works in an LCEL chain', async () => {
    const memory = new AgentMemory({ backend: new InMemoryBackend(), branch: 'feature/x' });
    await memory.remember({
      content: 'The release train leaves every second Tuesday',
      type: 'project',
      importance: 0.9,
    });
    await memory.remember({ content: 'Alice prefers tabs', type: 'user' });
    const retriever = new AgentMemoryRetriever({ memory, k: 1 });
    const [doc] = await retriever.invoke('when does the release train leave?');
    expect(doc).toBeInstanceOf(Document);
    expect(doc!.pageContent).toBe('The release train leaves every second Tuesday');
    expect(doc!.metadata).toMatchObject({
      type: 'project',
      importance: 0.9,
      branch: 'feature/x',
      namespace: 'project:feature/x',
    });
    expect(doc!.metadata.score).toBeGreaterThan(0);
    expect(doc!.id).toBe(doc!.metadata.id);
    const chain = retriever.pipe(
      RunnableLambda.from((docs: Document[]) => docs.map((d) => `* ${d.pageContent}`).join('\n')),
    );
    expect(await chain.invoke('release train')).toBe('* The release train leaves every second Tuesday');
  });

  it('honours types and another tenant', async () => {
    const memory = new AgentMemory({ backend: new InMemoryBackend() });
    await memory.remember({ content: 'Tabs over spaces', type: 'user' });
    await memory.remember({ content: 'Spaces in YAML files', type: 'project' });
    const users = await new AgentMemoryRetriever({ memory, types: ['user'] }).invoke('tabs spaces');
    expect(users.map((d) => d.metadata.type)).toEqual(['user']);
    expect(await new AgentMemoryRetriever({ memory, tenant: 'someone-else' }).invoke('tabs spaces')).toEqual([]);
  });
});
