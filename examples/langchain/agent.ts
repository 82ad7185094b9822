/**
 * A LangChain agent with agentmem: `createAgent` with the agentmem LangGraph
 * store (tools save and search long-term facts) and the memory middleware
 * (skills and memories injected into the system prompt, facts extracted in the
 * background). Runs offline with LangChain's fake chat model; two agent
 * instances share one SQLite file, as two processes would.
 *
 *   npx tsx examples/langchain/agent.ts
 *
 * The store uses core's offline hashing embedder (words, not meaning). To
 * switch embedder, pass one to createSqliteMemory: `embedder: cohereEmbedder()`
 * from @agentmem/cohere (CO_API_KEY; docs/cohere.md) or
 * `await langchainEmbedder(embeddings)` over any LangChain Embeddings.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type AgentMemory, loadSkills } from '@agentmem/core';
import { agentMemoryMiddleware } from '@agentmem/langchain/middleware';
import { AgentMemoryStore } from '@agentmem/langchain/store';
import { createSqliteMemory } from '@agentmem/sqlite';
import { AIMessage, type BaseMessage, SystemMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import type { BaseStore } from '@langchain/langgraph-checkpoint';
import { createAgent, type ToolRuntime, tool } from 'langchain';
import { z } from 'zod';

const text = (m: BaseMessage | undefined) =>
  typeof m?.content === 'string'
    ? m.content
    : (m?.content ?? []).map((p) => (typeof p === 'string' ? p : 'text' in p ? p.text : '')).join('');

// runtime.store is the LangGraph store createAgent was given.
const storeOf = (runtime: ToolRuntime) => runtime.store as unknown as BaseStore;

const saveNote = tool(
  async ({ note }, runtime: ToolRuntime) => {
    await storeOf(runtime).put(['notes', 'team'], `note-${Date.now()}`, { text: note });
    return 'saved';
  },
  { name: 'save_note', description: 'Save a note for later sessions', schema: z.object({ note: z.string() }) },
);
const searchNotes = tool(
  async ({ query }, runtime: ToolRuntime) =>
    (await storeOf(runtime).search(['notes'], { query, limit: 3 })).map((i) => String(i.value.text)).join('\n') ||
    'nothing found',
  { name: 'search_notes', description: 'Search saved notes', schema: z.object({ query: z.string() }) },
);

export interface ExampleResult {
  /** What the chat model saw as its system prompt, per turn. */
  systemPrompts: string[];
  replies: string[];
  toolResults: string[];
  memories: string[];
}

async function agentFor(
  memory: AgentMemory,
  model: ReturnType<typeof fakeModel>,
  extractor: ReturnType<typeof fakeModel>,
) {
  const middleware = agentMemoryMiddleware({ memory, extraction: { model: extractor } });
  const agent = createAgent({
    model,
    tools: [saveNote, searchNotes],
    store: new AgentMemoryStore({ memory, index: { fields: ['text'] } }),
    systemPrompt: 'You are the team DevOps agent.',
    middleware: [middleware],
  });
  return { agent, middleware };
}

export async function runExample(path: string, log: (line: string) => void = console.log): Promise<ExampleResult> {
  const result: ExampleResult = { systemPrompts: [], replies: [], toolResults: [], memories: [] };
  const skillsDir = fileURLToPath(new URL('../skills', import.meta.url));

  // Session 1: learn a fact (extraction) and save a note (store, through a tool).
  const first = await createSqliteMemory({ path });
  await first.skills.registerMany((await loadSkills(skillsDir)).skills);
  const model1 = fakeModel()
    .respondWithTools([{ name: 'save_note', args: { note: 'Staging deploys need a green smoke test first' } }])
    .respond(new AIMessage('Noted, and saved the smoke-test rule.'));
  const extractor = fakeModel().respond(
    new AIMessage(
      '{"facts":[{"content":"The team deploys with Docker Compose on staging","type":"project","importance":0.8}]}',
    ),
  );
  const one = await agentFor(first, model1, extractor);
  const r1 = await one.agent.invoke({
    messages: [{ role: 'user', content: 'We deploy with Docker Compose on staging; remember the smoke-test rule.' }],
  });
  await one.middleware.idle();
  result.replies.push(text(r1.messages.at(-1)));
  log(`session 1 > ${result.replies[0]}`);
  await first.close();

  // Session 2, a new agent on the same file: the fact is injected, the note is found, the docker skill activates.
  const second = await createSqliteMemory({ path });
  const model2 = fakeModel()
    .respondWithTools([{ name: 'search_notes', args: { query: 'staging deploys smoke test' } }])
    .respond(new AIMessage('Run the smoke test, then docker compose up on staging.'));
  const two = await agentFor(second, model2, fakeModel().respond(new AIMessage('{"facts":[]}')));
  const r2 = await two.agent.invoke({ messages: [{ role: 'user', content: 'deploy the containers to staging' }] });
  await two.middleware.idle();
  for (const call of model2.calls) {
    const system = call.messages.find((m) => SystemMessage.isInstance(m));
    result.systemPrompts.push(text(system));
  }
  result.toolResults = r2.messages.filter((m) => m.getType() === 'tool').map((m) => text(m));
  result.replies.push(text(r2.messages.at(-1)));
  for await (const m of second.memories()) result.memories.push(m.content);
  log(`session 2 system prompt:\n${result.systemPrompts[0]}`);
  log(`session 2 tool result: ${result.toolResults[0]}`);
  log(`session 2 > ${result.replies[1]}`);
  await second.close();
  return result;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const dir = mkdtempSync(join(tmpdir(), 'agentmem-langchain-example-'));
  runExample(join(dir, 'memory.db'))
    .finally(() => rmSync(dir, { recursive: true, force: true }))
    .catch((error) => {
      console.error(error);
      process.exitCode = 1;
    });
}
