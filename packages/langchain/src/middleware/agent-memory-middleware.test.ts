import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentMemory, InMemoryBackend } from '@agentmem/core';
import { createSqliteMemory } from '@agentmem/sqlite';
import { AIMessage, type BaseMessage, SystemMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { createAgent, type ToolRuntime, tool } from 'langchain';
import type { BaseStore } from '@langchain/langgraph-checkpoint';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { AgentMemoryStore } from '../store';
import { agentMemoryMiddleware } from './agent-memory-middleware';
import { textOf } from './messages';

/** The system prompt the model received, as text (createAgent sends content blocks). */
const systemText = (messages: BaseMessage[]) => {
  const system = messages.find((m) => SystemMessage.isInstance(m));
  return system ? textOf(system) : '';
};

async function memoryWithSkill() {
  const memory = new AgentMemory({ backend: new InMemoryBackend() });
  await memory.remember({ content: 'The staging cluster runs in eu-west-1', type: 'project' });
  await memory.skills.register({
    name: 'docker',
    description: 'Docker best practices',
    content: '## Docker\n- Always use multi-stage builds',
    triggerKeywords: ['docker', 'container'],
    globPatterns: ['Dockerfile'],
  });
  return memory;
}

describe('agentMemoryMiddleware in createAgent', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('gives the model a system prompt with the active skills and relevant memories', async () => {
    const memory = await memoryWithSkill();
    const model = fakeModel().respond(new AIMessage('Use a multi-stage Dockerfile.'));
    const agent = createAgent({
      model,
      systemPrompt: 'You are a DevOps agent.',
      middleware: [agentMemoryMiddleware({ memory })],
    });
    const result = await agent.invoke({
      messages: [{ role: 'user', content: 'deploy the containers to the staging cluster' }],
    });
    const received = systemText(model.calls[0]!.messages);
    expect(received.startsWith('You are a DevOps agent.\n\n<agentmem-context>')).toBe(true);
    expect(received).toContain('<agentmem-context>');
    expect(received).toContain('## Active skills');
    expect(received).toContain('### docker');
    expect(received).toContain('## Relevant memories');
    expect(received).toContain('The staging cluster runs in eu-west-1');
    expect(received.match(/<agentmem-context>/g)).toHaveLength(1);
    expect(result.messages.at(-1)?.content).toBe('Use a multi-stage Dockerfile.');
  });

  it('matches skills by the files of a run (context.files)', async () => {
    const memory = await memoryWithSkill();
    const model = fakeModel().respond(new AIMessage('Done.'));
    const agent = createAgent({ model, middleware: [agentMemoryMiddleware({ memory })] });
    await agent.invoke({ messages: [{ role: 'user', content: 'tidy this up' }] }, {
      context: { files: ['services/api/Dockerfile'] },
    } as never);
    expect(systemText(model.calls[0]!.messages)).toContain('### docker');
  });

  it('extracts facts after the run in the background, through the conflict check', async () => {
    const memory = new AgentMemory({ backend: new InMemoryBackend() });
    await memory.remember({ content: 'The database is PostgreSQL 14', type: 'project' });
    const extractor = fakeModel().respond(
      new AIMessage(
        '```json\n{"facts":[{"content":"The database is PostgreSQL 16","type":"project","importance":0.8}]}\n```',
      ),
    );
    const middleware = agentMemoryMiddleware({ memory, extraction: { model: extractor } });
    const agent = createAgent({
      model: fakeModel().respond(new AIMessage('Noted: PostgreSQL 16.')),
      middleware: [middleware],
    });
    await agent.invoke({ messages: [{ role: 'user', content: 'We upgraded the database to PostgreSQL 16' }] });
    await middleware.idle();
    expect((await memory.recall('which database')).map((r) => r.memory.content)).toEqual([
      'The database is PostgreSQL 16',
    ]);
    expect(systemText(extractor.calls[0]!.messages)).toMatch(/memory extractor/);
    expect(middleware.extractionUsage().calls).toBe(1);
  });

  it('never fails the run when extraction fails or injection cannot recall', async () => {
    const memory = new AgentMemory({ backend: new InMemoryBackend() });
    const onError = vi.fn();
    const middleware = agentMemoryMiddleware({
      memory,
      extraction: { model: fakeModel().alwaysThrow(new Error('extractor down')) },
      onError,
    });
    const agent = createAgent({ model: fakeModel().respond(new AIMessage('fine')), middleware: [middleware] });
    const result = await agent.invoke({ messages: [{ role: 'user', content: 'hello there' }] });
    await middleware.idle();
    expect(result.messages.at(-1)?.content).toBe('fine');
    expect(onError).toHaveBeenCalledWith(expect.objectContaining({ message: 'extractor down' }), { phase: 'extract' });
    await memory.close();
    const broken = agentMemoryMiddleware({ memory, onError });
    const model = fakeModel().respond(new AIMessage('still fine'));
    const after = await createAgent({ model, middleware: [broken] }).invoke({
      messages: [{ role: 'user', content: 'hi again' }],
    });
    expect(after.messages.at(-1)?.content).toBe('still fine');
    expect(onError).toHaveBeenCalledWith(expect.anything(), { phase: 'inject' });
  });

  it('scopes each run by its context (userId as tenant)', async () => {
    const memory = new AgentMemory({ backend: new InMemoryBackend() });
    await memory.withScope({ tenant: 'alice' }).remember({ content: 'Alice prefers Rust', type: 'user' });
    const model = fakeModel().respond(new AIMessage('ok')).respond(new AIMessage('ok'));
    const agent = createAgent({ model, middleware: [agentMemoryMiddleware({ memory })] });
    await agent.invoke({ messages: [{ role: 'user', content: 'which language do I prefer, Rust?' }] }, {
      context: { userId: 'alice' },
    } as never);
    await agent.invoke({ messages: [{ role: 'user', content: 'which language do I prefer, Rust?' }] }, {
      context: { userId: 'bob' },
    } as never);
    expect(systemText(model.calls[0]!.messages)).toContain('Alice prefers Rust');
    expect(systemText(model.calls[1]!.messages)).not.toContain('Alice prefers Rust');
  });

  it('stores extracted facts in the tenant of the run that produced them', async () => {
    const memory = new AgentMemory({ backend: new InMemoryBackend() });
    const extractor = fakeModel().respond(
      new AIMessage('{"facts":[{"content":"Prefers Zig for tooling","type":"user","importance":0.8}]}'),
    );
    const middleware = agentMemoryMiddleware({ memory, extraction: { model: extractor } });
    const agent = createAgent({ model: fakeModel().respond(new AIMessage('Zig it is.')), middleware: [middleware] });
    await agent.invoke({ messages: [{ role: 'user', content: 'I like Zig for tooling' }] }, {
      context: { userId: 'carol' },
    } as never);
    await middleware.idle();
    expect(
      (await memory.withScope({ tenant: 'carol' }).recall('tooling language')).map((r) => r.memory.content),
    ).toEqual(['Prefers Zig for tooling']);
    expect(await memory.recall('tooling language')).toEqual([]);
  });

  it('gives createAgent a store that tools use and that persists across agents on one SQLite file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentmem-lc-'));
    dirs.push(dir);
    const path = join(dir, 'agent.db');
    const saveFact = tool(
      async ({ fact }, runtime: ToolRuntime) => {
        // ToolRuntime types `store` as core's key-value store; createAgent passes the LangGraph store.
        await (runtime.store as unknown as BaseStore).put(['memories', 'u1'], 'fav-editor', { text: fact });
        return 'saved';
      },
      { name: 'save_fact', description: 'Save a fact about the user', schema: z.object({ fact: z.string() }) },
    );
    const first = await createSqliteMemory({ path });
    const model1 = fakeModel()
      .respondWithTools([{ name: 'save_fact', args: { fact: 'The user edits with Helix' } }])
      .respond(new AIMessage('Saved.'));
    await createAgent({ model: model1, tools: [saveFact], store: new AgentMemoryStore({ memory: first }) }).invoke({
      messages: [{ role: 'user', content: 'remember that I use Helix' }],
    });
    await first.close();

    const second = await createSqliteMemory({ path });
    const readFact = tool(
      async ({ query }, runtime: ToolRuntime) => {
        const hits = await (runtime.store as unknown as BaseStore).search(['memories', 'u1'], { query });
        return hits.map((h) => String(h.value.text)).join('\n');
      },
      { name: 'read_facts', description: 'Search saved facts', schema: z.object({ query: z.string() }) },
    );
    const model2 = fakeModel()
      .respondWithTools([{ name: 'read_facts', args: { query: 'which editor does the user use' } }])
      .respond(new AIMessage('You use Helix.'));
    const result = await createAgent({
      model: model2,
      tools: [readFact],
      store: new AgentMemoryStore({ memory: second }),
    }).invoke({
      messages: [{ role: 'user', content: 'which editor do I use?' }],
    });
    const toolMessage = result.messages.find((m) => m.getType() === 'tool');
    expect(toolMessage?.content).toBe('The user edits with Helix');
    await second.close();
  });
});
