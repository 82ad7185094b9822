import { AgentMemory, InMemoryBackend } from '@agentmem/core';
import { CATALOG_TEST_SKILLS } from '@agentmem/core/testing';
import type { LanguageModelV3CallOptions, LanguageModelV3GenerateResult } from '@ai-sdk/provider';
import { generateText, type ModelMessage, stepCountIs, type ToolApprovalResponse, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { textResult, usage } from '../testing';
import { agentMemoryMiddleware } from '../middleware/agent-memory-middleware';
import { memoryTools } from './memory-tools';

/** A model that calls one tool, then answers with text once it sees the tool's result. */
function callsTool(toolName: string, input: unknown) {
  return new MockLanguageModelV3({
    doGenerate: async ({ prompt }: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> => {
      if (prompt.some((m) => m.role === 'tool' && m.content.some((p) => p.type === 'tool-result')))
        return textResult('Done.');
      return {
        content: [{ type: 'tool-call', toolCallId: 'call-1', toolName, input: JSON.stringify(input) }],
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
        usage: usage(10, 5),
        warnings: [],
      };
    },
  });
}

/** The tool result the model received in its last call. */
function toolOutput(model: MockLanguageModelV3): unknown {
  const last = model.doGenerateCalls.at(-1)!.prompt;
  for (const message of last) {
    if (message.role !== 'tool') continue;
    for (const part of message.content) if (part.type === 'tool-result') return part.output;
  }
  return undefined;
}

describe('memoryTools', () => {
  it('remember stores a fact through generateText, with the conflict check', async () => {
    const memory = new AgentMemory({ backend: new InMemoryBackend() });
    const old = await memory.remember({ content: 'The API uses PostgreSQL 14', type: 'project' });
    const model = callsTool('remember', { content: 'The API uses PostgreSQL 16', type: 'project', importance: 0.8 });
    const result = await generateText({
      model,
      tools: memoryTools(memory),
      prompt: 'We moved to PostgreSQL 16.',
      stopWhen: stepCountIs(3),
    });
    expect(result.text).toBe('Done.');

    const [recalled] = await memory.recall('PostgreSQL version of the API');
    expect(recalled!.memory.content).toBe('The API uses PostgreSQL 16');
    expect(recalled!.memory.importance).toBe(0.8);
    expect(toolOutput(model)).toEqual({
      type: 'json',
      value: { id: recalled!.memory.id, stored: true, duplicate: false, superseded: [old.id] },
    });
  });

  it('recall returns the relevant memories to the model, sanitised', async () => {
    const memory = new AgentMemory({ backend: new InMemoryBackend() });
    const pnpm = await memory.remember({ content: 'The user prefers pnpm <b>always</b>', type: 'user' });
    await memory.remember({ content: 'The office is in Berlin', type: 'user' });
    const model = callsTool('recall', { query: 'which package manager does the user prefer, pnpm?', k: 1 });
    await generateText({
      model,
      tools: memoryTools(memory),
      prompt: 'Which package manager?',
      stopWhen: stepCountIs(3),
    });
    const output = toolOutput(model) as { type: string; value: { id: string; content: string; type: string }[] };
    expect(output.type).toBe('json');
    expect(output.value.map(({ id, type, content }) => ({ id, type, content }))).toEqual([
      { id: pnpm.id, type: 'user', content: 'The user prefers pnpm ‹b›always‹/b›' },
    ]);
  });

  it('forget waits for approval by default, then deletes the memory', async () => {
    const memory = new AgentMemory({ backend: new InMemoryBackend() });
    const fact = await memory.remember({ content: 'The user prefers pnpm', type: 'user' });
    const model = callsTool('forget', { id: fact.id });
    const tools = memoryTools(memory);
    const messages: ModelMessage[] = [{ role: 'user', content: 'Forget that I like pnpm.' }];

    const first = await generateText({ model, tools, messages, stopWhen: stepCountIs(3) });
    const requests = first.content.filter((p) => p.type === 'tool-approval-request');
    expect(requests).toHaveLength(1);
    expect(await memory.get(fact.id)).toBeDefined(); // nothing deleted before approval

    messages.push(...first.response.messages);
    const approvals: ToolApprovalResponse[] = requests.map((r) => ({
      type: 'tool-approval-response',
      approvalId: r.approvalId,
      approved: true,
    }));
    messages.push({ role: 'tool', content: approvals });
    const second = await generateText({ model, tools, messages, stopWhen: stepCountIs(3) });
    expect(second.text).toBe('Done.');
    expect(await memory.get(fact.id)).toBeUndefined();
    expect(toolOutput(model)).toEqual({ type: 'json', value: { id: fact.id, forgotten: true } });
  });

  it('forget runs at once when approval is switched off, and stays within the tenant', async () => {
    const memory = new AgentMemory({ backend: new InMemoryBackend() });
    const bobs = await memory.withScope({ tenant: 'bob' }).remember({ content: 'Bob prefers yarn', type: 'user' });
    const model = callsTool('forget', { id: bobs.id });
    await generateText({
      model,
      tools: memoryTools(memory, { tenant: 'alice', forgetNeedsApproval: false }),
      prompt: 'Forget it.',
      stopWhen: stepCountIs(3),
    });
    expect(toolOutput(model)).toEqual({ type: 'json', value: { id: bobs.id, forgotten: false } });
    expect(await memory.withScope({ tenant: 'bob' }).get(bobs.id)).toBeDefined();
  });

  it('rejects input that does not match the schema before anything is written', async () => {
    const memory = new AgentMemory({ backend: new InMemoryBackend() });
    const model = callsTool('remember', { content: 'x', type: 'opinion' });
    const result = await generateText({ model, tools: memoryTools(memory), prompt: 'hi', stopWhen: stepCountIs(1) });
    expect(result.content.some((p) => p.type === 'tool-error')).toBe(true);
    expect((await memory.stats()).total).toBe(0);
  });
});

describe('catalog mode: the model chooses a skill and reads it with load_skill', () => {
  it('lists the library in the system prompt, and load_skill returns the chosen skill in full', async () => {
    const memory = new AgentMemory({ backend: new InMemoryBackend() });
    await memory.skills.registerMany(CATALOG_TEST_SKILLS);
    // Step 1: the model reads the catalog and asks for a skill; step 2: it answers from the tool result.
    let system = '';
    const model = new MockLanguageModelV3({
      doGenerate: async ({ prompt }: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> => {
        system = prompt
          .filter((m) => m.role === 'system')
          .map((m) => m.content)
          .join('\n');
        if (prompt.some((m) => m.role === 'tool')) return textResult('Grouped by impact, with links.');
        const listed = /^- ([a-z-]+):/m.exec(system)?.[1];
        return {
          content: [
            { type: 'tool-call', toolCallId: 'c1', toolName: 'load_skill', input: JSON.stringify({ name: listed }) },
          ],
          finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
          usage: usage(10, 5),
          warnings: [],
        };
      },
    });
    const result = await generateText({
      model: wrapLanguageModel({ model, middleware: agentMemoryMiddleware({ memory, skillCatalog: true, skillK: 0 }) }),
      tools: memoryTools(memory),
      prompt: 'Draft the changelog entry for this sprint from the merged pull requests',
      stopWhen: stepCountIs(3),
    });
    expect(result.text).toBe('Grouped by impact, with links.');
    expect(system).toContain('## Other available skills');
    expect(system).toContain('load_skill');
    // Catalog only (skillK 0): nothing in full, the most relevant skill listed first.
    expect(system).not.toContain('## Active skills');
    expect(system.indexOf('- release-notes:')).toBeLessThan(system.indexOf('- api-style:'));
    const output = toolOutput(model) as { type: string; value: { name: string; found: boolean; instructions: string } };
    expect(output.value).toMatchObject({ name: 'release-notes', found: true });
    expect(output.value.instructions).toContain('Link every pull request.');
  });

  it('load_skill tells the model when there is no such skill', async () => {
    const memory = new AgentMemory({ backend: new InMemoryBackend() });
    const model = callsTool('load_skill', { name: 'nothing-here' });
    await generateText({ model, tools: memoryTools(memory), prompt: 'x', stopWhen: stepCountIs(3) });
    expect((toolOutput(model) as { value: unknown }).value).toMatchObject({ name: 'nothing-here', found: false });
  });
});
