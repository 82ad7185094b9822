import { AgentMemory, InMemoryBackend } from '@agentmem/core';
import { AIMessage } from '@langchain/core/messages';
import { ChatPromptTemplate } from '@langchain/core/prompts';
import { RunnablePassthrough } from '@langchain/core/runnables';
import { fakeModel } from '@langchain/core/testing';
import { describe, expect, it } from 'vitest';
import { textOf } from '../middleware/messages';
import { AgentMemoryClassic } from './agent-memory-classic';

describe('AgentMemoryClassic (BaseMemory)', () => {
  it('feeds a chain the context block and learns from each exchange', async () => {
    const store = new AgentMemory({ backend: new InMemoryBackend() });
    const memory = new AgentMemoryClassic({ memory: store });
    expect(memory.memoryKeys).toEqual(['memories']);
    const model = fakeModel().respond(new AIMessage('Got it.')).respond(new AIMessage('You deploy with Helm.'));
    const prompt = ChatPromptTemplate.fromMessages([
      ['system', 'You are helpful.\n{memories}'],
      ['human', '{input}'],
    ]);
    const chain = RunnablePassthrough.assign({
      memories: async (i: { input: string }) => (await memory.loadMemoryVariables(i)).memories,
    })
      .pipe(prompt)
      .pipe(model);
    const run = async (input: string) => {
      const answer = await chain.invoke({ input });
      await memory.saveContext({ input }, { output: textOf(answer) });
      return answer;
    };
    await run('We deploy the services with Helm charts');
    await run('how do we deploy the services?');
    const secondPrompt = model.calls[1]!.messages.map(textOf).join('\n');
    expect(secondPrompt).toContain('## Relevant memories');
    expect(secondPrompt).toContain('We deploy the services with Helm charts');
  });

  it('extracts facts with a chat model when one is given', async () => {
    const store = new AgentMemory({ backend: new InMemoryBackend() });
    const extractor = fakeModel().respond(
      new AIMessage('{"facts":[{"content":"Uses Helm for deploys","type":"project","importance":0.7}]}'),
    );
    const memory = new AgentMemoryClassic({ memory: store, extractionModel: extractor });
    await memory.saveContext({ input: 'we use helm' }, { output: 'ok' });
    expect((await store.recall('helm deploys')).map((r) => r.memory.content)).toEqual(['Uses Helm for deploys']);
  });
});
