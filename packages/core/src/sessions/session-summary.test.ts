import { describe, expect, it, vi } from 'vitest';
import { AgentMemory } from '../agent-memory';
import { InMemoryBackend } from '../backends';
import type { ChatMessage } from '../compaction';
import { SessionSummary, sessionNamespace } from './session-summary';

const say = (role: ChatMessage['role'], text: string): ChatMessage => ({ role, parts: [{ type: 'text', text }] });
const turns = (n: number, from = 0) => Array.from({ length: n }, (_, i) => [say('user', `question ${from + i}`), say('assistant', `answer ${from + i}`)]).flat();

describe('SessionSummary', () => {
  it('updates only when the turn threshold is crossed, summarising what is new', async () => {
    const memory = new AgentMemory({ backend: new InMemoryBackend() });
    const summarize = vi.fn(async ({ previousSummary, messages }: { previousSummary?: string; messages: ChatMessage[] }) => ({
      text: `${previousSummary ? `${previousSummary} + ` : ''}${messages.length} messages`,
      usage: { tokens: 42 },
    }));
    const session = new SessionSummary(memory, { sessionId: 'thread-1', summarize, everyTurns: 3, everyTokens: 1e9 });
    const first = await session.observe(turns(2));
    expect(first).toMatchObject({ updated: false, reason: 'below-threshold' });
    expect(summarize).not.toHaveBeenCalled();
    const second = await session.observe(turns(3));
    expect(second).toMatchObject({ updated: true, reason: 'threshold', cost: { tokens: 42 } });
    expect(second.summary?.content).toBe('6 messages');
    expect(second.summary?.namespace).toBe(sessionNamespace('thread-1'));
    // Two more turns: below the threshold again, counted from the last update.
    expect((await session.observe(turns(5))).updated).toBe(false);
    const third = await session.observe(turns(6));
    expect(third.summary?.content).toBe('6 messages + 6 messages');
    expect(summarize).toHaveBeenCalledTimes(2);
    expect((await memory.history(session.id)).map((h) => h.action)).toEqual(['create', 'update']);
  });

  it('keeps updating when the application sends only a window of the conversation', async () => {
    const memory = new AgentMemory({ backend: new InMemoryBackend() });
    const seen: string[][] = [];
    const summarize = vi.fn(async ({ messages }: { messages: ChatMessage[] }) => {
      seen.push(messages.map((m) => (m.parts[0] as { text: string }).text));
      return `summary ${seen.length}`;
    });
    const session = new SessionSummary(memory, { sessionId: 'w', summarize, everyTurns: 2, everyTokens: 1e9 });
    const all = turns(8);
    // Each call carries the last three turns only (a sliding window), as many chat apps send.
    for (let end = 2; end <= all.length; end += 2) await session.observe(all.slice(Math.max(0, end - 6), end));
    expect(summarize).toHaveBeenCalledTimes(4);
    // Each update saw exactly what was new since the one before.
    expect(seen).toEqual([0, 2, 4, 6].map((i) => all.slice(i * 2, i * 2 + 4).map((m) => (m.parts[0] as { text: string }).text)));
  });

  it('updates on the token threshold too', async () => {
    const memory = new AgentMemory({ backend: new InMemoryBackend() });
    const session = new SessionSummary(memory, { sessionId: 't', summarize: async () => 'long talk', everyTurns: 100, everyTokens: 50 });
    const update = await session.observe([say('user', 'x'.repeat(400))]);
    expect(update.updated).toBe(true);
  });

  it('keeps the previous summary when an update fails, and reports the error', async () => {
    const memory = new AgentMemory({ backend: new InMemoryBackend() });
    const onError = vi.fn();
    let fail = false;
    const session = new SessionSummary(memory, {
      sessionId: 't',
      everyTurns: 1,
      onError,
      summarize: async () => {
        if (fail) throw new Error('model down');
        return 'user is migrating the API to v2';
      },
    });
    await session.observe(turns(1));
    fail = true;
    const failed = await session.observe(turns(3));
    expect(failed).toMatchObject({ updated: false, reason: 'failed' });
    expect(onError).toHaveBeenCalledWith(expect.objectContaining({ message: 'model down' }));
    expect((await session.latest())?.content).toBe('user is migrating the API to v2');
  });

  it('is found by the next session of the same user and thread, and only there', async () => {
    const backend = new InMemoryBackend();
    const first = new AgentMemory({ backend, tenant: 'alice' });
    await new SessionSummary(first, { sessionId: 'thread-9', summarize: async () => 'Alice is writing the release notes', everyTurns: 1 }).observe(turns(1));
    const later = new AgentMemory({ backend, tenant: 'alice' });
    const next = new SessionSummary(later, { sessionId: 'thread-9', summarize: async () => 'unused' });
    expect((await next.latest())?.content).toBe('Alice is writing the release notes');
    const bob = new SessionSummary(later.withScope({ tenant: 'bob' }), { sessionId: 'thread-9', summarize: async () => 'unused' });
    expect(await bob.latest()).toBeUndefined();
    // Summaries stay out of ordinary recall, and lead the prompt block of the same session.
    expect(await later.recall('release notes')).toEqual([]);
    const { block } = await later.contextFor('what was I doing?', { sessionId: 'thread-9' });
    expect(block).toMatch(/## Session summary\nAlice is writing the release notes/);
    expect((await later.contextFor('what was I doing?', { sessionId: 'other' })).block).not.toContain('Session summary');
  });
});
