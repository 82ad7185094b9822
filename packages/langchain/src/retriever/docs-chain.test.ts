import { AgentMemory, InMemoryBackend } from '@agentmem/core';
import type { Document } from '@langchain/core/documents';
import { StringOutputParser } from '@langchain/core/output_parsers';
import { ChatPromptTemplate } from '@langchain/core/prompts';
import { RunnableLambda, RunnablePassthrough, RunnableSequence } from '@langchain/core/runnables';
import { describe, expect, it } from 'vitest';
import { AgentMemoryRetriever } from './agent-memory-retriever';

// The retriever chain of docs/langchain.md, as written there (the model is a stand-in that echoes its prompt).
describe('docs/langchain.md retriever chain', () => {
  async function setup() {
    const memory = new AgentMemory({ backend: new InMemoryBackend() });
    await memory.remember({ content: 'The staging database is PostgreSQL 16', type: 'project' });
    const retriever = new AgentMemoryRetriever({ memory, k: 5, types: ['project', 'reference'] });
    const formatDocs = (docs: Document[]) => docs.map((d) => `- ${d.pageContent}`).join('\n');
    const prompt = ChatPromptTemplate.fromTemplate('Answer from this context:\n{context}\n\nQuestion: {question}');
    const model = RunnableLambda.from((value: { toString(): string }) => value.toString());
    return { retriever, formatDocs, prompt, model };
  }

  it('fills context from memory and passes the question through', async () => {
    const { retriever, formatDocs, prompt, model } = await setup();
    const chain = RunnableSequence.from([
      { context: retriever.pipe(formatDocs), question: new RunnablePassthrough() },
      prompt,
      model,
      new StringOutputParser(),
    ]);
    const answer = await chain.invoke('which database runs on staging?');
    expect(answer).toContain('- The staging database is PostgreSQL 16');
    expect(answer).toContain('Question: which database runs on staging?');
  });

  it('the earlier snippet, retriever.pipe(formatDocs).pipe(prompt), cannot work: the prompt gets a string', async () => {
    const { retriever, formatDocs, prompt } = await setup();
    // @ts-expect-error it does not type-check either: the prompt takes { context, question }, not a string
    const chain = retriever.pipe(formatDocs).pipe(prompt);
    await expect(chain.invoke('which database?')).rejects.toThrow(/Missing value for input variable/);
  });
});
