import { AgentMemory, InMemoryBackend } from '@agentmem/core';
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { createAgent } from 'langchain';
import { describe, expect, it, vi } from 'vitest';
import { agentMemoryMiddleware } from './agent-memory-middleware';
import { textOf } from './messages';
import { sessionMiddleware } from './session-middleware';

/** A long history with tool calls: each turn a request, a tool call, a big result, an answer. */
function history(turns: number): BaseMessage[] {
  const out: BaseMessage[] = [];
  for (let i = 0; i < turns; i++) {
    out.push(new HumanMessage(`Turn ${i}: please check the logs of service ${i}`));
    out.push(
      new AIMessage({ content: '', tool_calls: [{ id: `call-${i}`, name: 'read_logs', args: { service: i } }] }),
    );
    out.push(new ToolMessage({ content: `log line ${i}\n`.repeat(400), tool_call_id: `call-${i}`, name: 'read_logs' }));
    out.push(new AIMessage(`Service ${i} looks healthy.`));
  }
  return out;
}

function pairsIntact(messages: BaseMessage[]) {
  const calls = messages.flatMap((m) => (AIMessage.isInstance(m) ? (m.tool_calls ?? []).map((c) => c.id) : []));
  const results = messages.flatMap((m) => (ToolMessage.isInstance(m) ? [m.tool_call_id] : []));
  return calls.length === results.length && calls.every((c) => results.includes(c!));
}

describe('sessionMiddleware in createAgent', () => {
  it('compacts a long conversation under the budget without breaking tool calls, with no model call for deterministic levels', async () => {
    const memory = new AgentMemory({ backend: new InMemoryBackend() });
    const summaries = fakeModel();
    const reports: unknown[] = [];
    const agentModel = fakeModel().respond(new AIMessage('All services are healthy.'));
    const agent = createAgent({
      model: agentModel,
      middleware: [
        sessionMiddleware({
          memory,
          model: summaries,
          maxTokens: 3000,
          keepRecentTurns: 2,
          onCompaction: (r) => reports.push(r),
        }),
      ],
    });
    await agent.invoke({ messages: [...history(20), new HumanMessage('summarise the health of all services')] });
    const received = agentModel.calls[0]!.messages;
    const tokens = received.reduce((n, m) => n + Math.ceil(textOf(m).length / 4) + 4, 0);
    expect(tokens).toBeLessThanOrEqual(3000);
    expect(pairsIntact(received)).toBe(true);
    expect(textOf(received.at(-1)!)).toBe('summarise the health of all services');
    expect(reports[0]).toMatchObject({ level: expect.stringMatching(/snip|micro|collapse/) });
    expect(summaries.callCount).toBe(0);
  });

  it('counts the system prompt (with the memory block) in the budget', async () => {
    const memory = new AgentMemory({ backend: new InMemoryBackend() });
    await memory.remember({
      content: `The services are listed in the ops runbook ${'(details) '.repeat(200)}`,
      type: 'project',
    });
    const agentModel = fakeModel().respond(new AIMessage('ok'));
    let countedBlock = false;
    const countTokens = (text: string) => {
      countedBlock ||= text.includes('<agentmem-context>');
      return Math.ceil(text.length / 4);
    };
    const agent = createAgent({
      model: agentModel,
      systemPrompt: `You are the ops agent. ${'Follow the runbook. '.repeat(300)}`,
      middleware: [
        agentMemoryMiddleware({ memory, maxChars: 3000 }),
        sessionMiddleware({ memory, model: fakeModel(), maxTokens: 8000, keepRecentTurns: 1, countTokens }),
      ],
    });
    await agent.invoke({
      messages: [...history(20), new HumanMessage('which services are listed in the ops runbook?')],
    });
    const received = agentModel.calls[0]!.messages;
    expect(textOf(received[0]!)).toContain('<agentmem-context>');
    expect(countedBlock).toBe(true); // agentMemoryMiddleware first: its block is part of what is counted
    const tokens = received.reduce((n, m) => n + Math.ceil(textOf(m).length / 4) + 4, 0);
    expect(tokens).toBeLessThanOrEqual(8000); // the messages alone fit after snip; with the system prompt they need micro
    expect(pairsIntact(received)).toBe(true);
  });

  it('never fails the run when the summary cannot be read or stored, and reports it', async () => {
    const memory = new AgentMemory({ backend: new InMemoryBackend() });
    memory.get = async () => {
      throw new Error('backend down');
    };
    const onError = vi.fn();
    const agent = createAgent({
      model: fakeModel().respond(new AIMessage('fine')),
      middleware: [sessionMiddleware({ memory, model: fakeModel(), maxTokens: 100_000, everyTurns: 1, onError })],
    });
    const result = await agent.invoke(
      { messages: [{ role: 'user', content: 'hello' }] },
      { configurable: { thread_id: 't' } },
    );
    expect(textOf(result.messages.at(-1)!)).toBe('fine');
    expect(onError).toHaveBeenCalledWith(expect.objectContaining({ message: 'backend down' }));
  });

  it('keeps a session summary that the next session of the thread starts with', async () => {
    const memory = new AgentMemory({ backend: new InMemoryBackend(), tenant: 'alice' });
    const summaries = fakeModel().respond(new AIMessage('Alice is migrating the billing service to Postgres 16.'));
    const first = createAgent({
      model: fakeModel().respond(new AIMessage('Started the migration plan.')),
      middleware: [sessionMiddleware({ memory, model: summaries, maxTokens: 100_000, everyTurns: 1 })],
    });
    await first.invoke(
      { messages: [{ role: 'user', content: 'help me migrate billing to Postgres 16' }] },
      { configurable: { thread_id: 't-1' } },
    );
    expect(summaries.callCount).toBe(1);

    const nextModel = fakeModel().respond(new AIMessage('We were migrating billing.'));
    const next = createAgent({ model: nextModel, middleware: [agentMemoryMiddleware({ memory })] });
    await next.invoke({ messages: [{ role: 'user', content: 'where were we?' }] }, {
      context: { threadId: 't-1' },
    } as never);
    const system = textOf(nextModel.calls[0]!.messages[0]!);
    expect(system).toContain('## Session summary\nAlice is migrating the billing service to Postgres 16.');
  });

  it('stores the auto level summary as the session summary, and falls back to collapse when the model fails', async () => {
    const memory = new AgentMemory({ backend: new InMemoryBackend() });
    const summaries = fakeModel().respond(new AIMessage('Checked the logs of services 0 to 58: all healthy.'));
    const agentModel = fakeModel().respond(new AIMessage('ok'));
    const agent = createAgent({
      model: agentModel,
      middleware: [
        sessionMiddleware({
          memory,
          model: summaries,
          maxTokens: 800,
          keepRecentTurns: 1,
          everyTurns: 1000,
          everyTokens: 1e9,
        }),
      ],
    });
    await agent.invoke(
      { messages: [...history(60), new HumanMessage('and now?')] },
      { configurable: { thread_id: 'ops' } },
    );
    expect(summaries.callCount).toBe(1);
    const received = agentModel.calls[0]!.messages.map(textOf);
    expect(received.some((t) => t.includes('Checked the logs of services 0 to 58: all healthy.'))).toBe(true);
    const { block } = await memory.contextFor('what happened?', { sessionId: 'ops' });
    expect(block).toContain('Checked the logs of services 0 to 58: all healthy.');

    const onError = vi.fn();
    const failing = createAgent({
      model: fakeModel().respond(new AIMessage('still ok')),
      middleware: [
        sessionMiddleware({
          memory,
          model: fakeModel().alwaysThrow(new Error('summary model down')),
          maxTokens: 800,
          keepRecentTurns: 1,
          onError,
        }),
      ],
    });
    const result = await failing.invoke(
      { messages: [...history(80), new HumanMessage('again?')] },
      { configurable: { thread_id: 'other' } },
    );
    expect(textOf(result.messages.at(-1)!)).toBe('still ok');
    expect(onError).toHaveBeenCalledWith(expect.objectContaining({ message: 'summary model down' }));
  });
});
