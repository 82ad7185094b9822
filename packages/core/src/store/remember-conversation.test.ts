import { describe, expect, it } from 'vitest';
import { AgentMemory } from '../agent-memory';
import { InMemoryBackend } from '../backends';
import { AgentMemoryError } from '../errors';
import { conversationInputs, spokenDate } from './conversation-inputs';

const NOW = Date.parse('2026-03-01T00:00:00Z');

function fresh() {
  const clock = { now: NOW };
  const memory = new AgentMemory({ backend: new InMemoryBackend(), now: () => clock.now });
  return { memory, clock };
}

const SESSION = [
  { speaker: 'Caroline', text: 'Do you still go to that pottery class on weekends?' },
  { speaker: 'Melanie', text: 'Yes, every Saturday morning, it calms me down.' },
  { speaker: 'Caroline', text: 'I should come along some time.' },
  { speaker: 'Melanie', text: 'The kids started swimming lessons last month.' },
];

describe('rememberConversation', () => {
  it('stores one memory per turn with speaker, time, session id and the neighbouring turns as context', async () => {
    const { memory } = fresh();
    const stored = await memory.rememberConversation(SESSION, {
      sessionId: 's1',
      at: '2023-05-08T13:56:00Z',
      window: 1,
    });
    expect(stored.map((m) => m.content)).toEqual(SESSION.map((t) => `${t.speaker}: ${t.text}`));
    expect(stored.every((m) => m.occurredAt === '2023-05-08T13:56:00.000Z')).toBe(true);
    expect(stored[1]!.metadata).toMatchObject({ sessionId: 's1', turn: 1, speaker: 'Melanie' });
    expect(stored[1]!.context).toBe(
      `Conversation on ${spokenDate('2023-05-08T13:56:00Z')}.\n${SESSION[0]!.text}\n${SESSION[2]!.text}`,
    );
    expect(stored[0]!.context).not.toContain('swimming'); // window 1: two turns away is out
    expect(stored[1]!.createdAt).toBe(new Date(NOW).toISOString());
  });

  it('finds the answer that only makes sense with the turn before it, and never shows the context', async () => {
    const { memory } = fresh();
    await memory.rememberConversation(SESSION, { at: '2023-05-08T13:56:00Z' });
    const [top] = await memory.recall('How often does Melanie go to pottery class?', { k: 1, reinforce: false });
    expect(top?.memory.content).toBe('Melanie: Yes, every Saturday morning, it calms me down.');
    const { block } = await memory.contextFor('How often does Melanie go to pottery class?');
    expect(block).toContain('every Saturday morning');
    expect(block).not.toContain('Conversation on'); // the context helps find, but is not shown
  });

  it('a match in the context alone ranks below a memory that matches by itself', async () => {
    const { memory } = fresh();
    await memory.rememberConversation(SESSION, { at: '2023-05-08T13:56:00Z', window: 1 });
    await memory.remember({ content: 'Melanie teaches a pottery class on Thursdays', type: 'user' });
    const results = await memory.recall('pottery class', { k: 5, reinforce: false });
    const contents = results.map((r) => r.memory.content);
    const contextOnly = contents.indexOf('Melanie: Yes, every Saturday morning, it calms me down.');
    expect(contextOnly).toBeGreaterThan(contents.indexOf('Melanie teaches a pottery class on Thursdays'));
    expect(contextOnly).toBeGreaterThan(contents.indexOf(`Caroline: ${SESSION[0]!.text}`));
  });

  it('per-turn times win over the session time; after/before select by event time', async () => {
    const { memory } = fresh();
    const stored = await memory.rememberConversation(
      [
        { speaker: 'user', text: 'We moved to Lisbon.', at: '2024-01-10T09:00:00Z' },
        { speaker: 'user', text: 'We moved again, to Porto.', at: '2025-06-01T09:00:00Z' },
      ],
      { at: '2024-01-10T00:00:00Z' },
    );
    expect(stored.map((m) => m.occurredAt)).toEqual(['2024-01-10T09:00:00.000Z', '2025-06-01T09:00:00.000Z']);
    const since = await memory.recall('where did we move', { after: '2025-01-01', reinforce: false });
    expect(since.map((r) => r.memory.content)).toEqual(['user: We moved again, to Porto.']);
  });

  it('importing last year does not prune itself on the next decay pass: decay counts from the last access', async () => {
    const { memory, clock } = fresh();
    const stored = await memory.rememberConversation(SESSION, { at: '2025-02-01T10:00:00Z' });
    const report = await memory.applyDecay();
    expect(report.pruned).toBe(0);
    expect((await memory.get(stored[1]!.id))?.prunedAt).toBeUndefined();
    // Untouched for long enough after the import, it decays like any memory (default half-life one week).
    clock.now += 60 * 24 * 3_600_000;
    expect((await memory.applyDecay()).pruned).toBe(SESSION.length);
  });

  it('refuses bad turns and options with a clear error, writing nothing', async () => {
    const { memory } = fresh();
    const bad = [
      () => memory.rememberConversation([{ speaker: '', text: 'hi' }]),
      () => memory.rememberConversation([{ speaker: 'a', text: ' ' }]),
      () => memory.rememberConversation(SESSION, { at: 'yesterday' }),
      () => memory.rememberConversation(SESSION, { window: -1 }),
      () => memory.rememberConversation([{ speaker: 'a', text: 'hi', at: '08/05/2023' }]),
    ];
    for (const call of bad) {
      await expect(call()).rejects.toSatisfy((e: unknown) => AgentMemoryError.hasCode(e, 'INVALID_INPUT'));
    }
    expect((await memory.stats()).total).toBe(0);
  });

  it('builds the inputs without a store (for rememberMany with options of its own)', () => {
    const inputs = conversationInputs(SESSION, { window: 0, title: 'Weekend plans', type: 'project' });
    expect(inputs[0]).toMatchObject({ type: 'project', content: `Caroline: ${SESSION[0]!.text}` });
    expect(inputs[0]!.context).toBe('Conversation Weekend plans.');
    expect(inputs[0]!.occurredAt).toBeUndefined(); // no time given: remember stamps now
  });
});

describe('context and occurredAt on remember and update', () => {
  it('context is not part of the content hash; update can change context and occurredAt', async () => {
    const { memory } = fresh();
    const a = await memory.remember({
      content: 'Deploys freeze on Fridays',
      type: 'project',
      context: 'from the ops handbook',
    });
    const b = await memory.remember({ content: 'Deploys freeze on Fridays', type: 'project', context: 'another page' });
    expect(b.id).toBe(a.id);
    expect(b.context).toBe('from the ops handbook');
    expect((await memory.recall('ops handbook', { reinforce: false }))[0]?.memory.id).toBe(a.id);
    const moved = await memory.update(a.id, { context: 'release runbook', occurredAt: '2024-12-24' });
    expect(moved.occurredAt).toBe('2024-12-24T00:00:00.000Z');
    expect(moved.contentHash).toBe(a.contentHash);
    expect(await memory.recall('ops handbook', { reinforce: false })).toEqual([]);
    expect((await memory.recall('release runbook', { reinforce: false }))[0]?.memory.id).toBe(a.id);
    const cleared = await memory.update(a.id, { context: null });
    expect(cleared.context).toBeUndefined();
    expect((await memory.history(a.id)).map((h) => h.memory.context)).toEqual([
      'from the ops handbook',
      'release runbook',
      undefined,
    ]);
  });

  it('refuses a bad occurredAt or context', async () => {
    const { memory } = fresh();
    for (const input of [
      { occurredAt: 'soon' },
      { occurredAt: new Date(Number.NaN) },
      { context: 42 as unknown as string },
      { context: 'x'.repeat(40_000) },
    ]) {
      await expect(memory.remember({ content: 'fact', type: 'user', ...input })).rejects.toSatisfy((e: unknown) =>
        AgentMemoryError.hasCode(e, 'INVALID_INPUT'),
      );
    }
  });
});
