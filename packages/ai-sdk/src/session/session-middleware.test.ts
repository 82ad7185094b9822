import {
  AgentMemory,
  AgentMemoryError,
  approximateTokens,
  CONTEXT_OPEN,
  type CompactionReport,
  countMessages,
  InMemoryBackend,
  SessionSummary,
  type SummaryUpdate,
} from '@agentmem/core';
import type { LanguageModelV3Prompt } from '@ai-sdk/provider';
import { generateText, type ModelMessage, stepCountIs, streamText, tool, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { agentMemoryMiddleware } from '../middleware/agent-memory-middleware';
import { mockChatModel, textResult } from '../testing';
import { toChatMessages } from './prompt-messages';
import { sessionMiddleware } from './session-middleware';

/** A long agent session: each turn a request, a tool call, its (large) result and an answer; then a new question. */
function conversation(turns: number, resultChars = 3000, textChars = 200): ModelMessage[] {
  const out: ModelMessage[] = [];
  for (let i = 0; i < turns; i++) {
    out.push({ role: 'user', content: `Request ${i}: ${'please look at the build logs '.repeat(textChars / 30)}` });
    out.push({
      role: 'assistant',
      content: [
        { type: 'tool-call', toolCallId: `call-${i}`, toolName: 'read_file', input: { path: `src/file${i}.ts` } },
      ],
    });
    out.push({
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: `call-${i}`,
          toolName: 'read_file',
          output: { type: 'text', value: `line ${i}\n`.repeat(resultChars / 7) },
        },
      ],
    });
    out.push({ role: 'assistant', content: `Answer ${i}: the file looks fine.` });
  }
  out.push({ role: 'user', content: 'What should I look at next?' });
  return out;
}

const tokens = (prompt: LanguageModelV3Prompt) => countMessages(toChatMessages(prompt), approximateTokens);

/** Every tool call has its result and every result its call. */
function pairsIntact(prompt: LanguageModelV3Prompt): boolean {
  const calls = new Set<string>();
  const results = new Set<string>();
  for (const m of prompt) {
    if (typeof m.content === 'string') continue;
    for (const p of m.content) {
      if (p.type === 'tool-call') calls.add(p.toolCallId);
      if (p.type === 'tool-result') results.add(p.toolCallId);
    }
  }
  return calls.size === results.size && [...calls].every((c) => results.has(c));
}

/** A summary model that answers with a fixed summary and reports its usage. */
function summaryModel(answer: (prompt: string) => string = () => 'The user is reviewing src files one by one.') {
  const promptText = (prompt: LanguageModelV3Prompt) =>
    prompt
      .map((m) =>
        typeof m.content === 'string' ? m.content : m.content.map((p) => ('text' in p ? p.text : '')).join(''),
      )
      .join('\n');
  return new MockLanguageModelV3({
    doGenerate: async ({ prompt }) => textResult(answer(promptText(prompt)), [300, 40]),
  });
}

/** What an unwrapped model receives for the same messages. */
async function baseline(messages: ModelMessage[], system?: string): Promise<LanguageModelV3Prompt> {
  const model = mockChatModel();
  await generateText({ model, messages, ...(system ? { system } : {}) });
  return model.doGenerateCalls[0]!.prompt;
}

function setup(options: Partial<Parameters<typeof sessionMiddleware>[0]> & { maxTokens: number }) {
  const memory = new AgentMemory({ backend: new InMemoryBackend() });
  const chat = mockChatModel(() => 'Look at src/next.ts.');
  const summarizer = summaryModel();
  const reports: CompactionReport[] = [];
  const summaries: SummaryUpdate[] = [];
  const errors: { error: unknown; phase: string }[] = [];
  const middleware = sessionMiddleware({
    memory,
    model: summarizer,
    keepRecentTurns: 2,
    onCompaction: (r) => reports.push(r),
    onSummary: (u) => summaries.push(u),
    onError: (error, { phase }) => errors.push({ error, phase }),
    ...options,
  });
  const model = wrapLanguageModel({ model: chat, middleware });
  return { memory, chat, summarizer, middleware, model, reports, summaries, errors };
}

describe('sessionMiddleware: compaction levels through generateText', () => {
  it('passes a prompt that fits through unchanged and reports nothing', async () => {
    const messages = conversation(2, 100);
    const s = setup({ maxTokens: 100_000 });
    await generateText({ model: s.model, messages });
    expect(s.chat.doGenerateCalls[0]!.prompt).toEqual(await baseline(messages));
    expect(s.reports).toEqual([]);
  });

  it('snip alone: long old tool outputs become head + tail with a marker; recent turns identical', async () => {
    const messages = conversation(8, 3000);
    const full = await baseline(messages);
    const budget = tokens(full) - 1000;
    const s = setup({ maxTokens: budget });
    await generateText({ model: s.model, messages });

    const received = s.chat.doGenerateCalls[0]!.prompt;
    expect(s.reports.map((r) => r.levelsRun)).toEqual([['snip']]);
    expect(tokens(received)).toBeLessThanOrEqual(budget);
    expect(s.reports[0]).toMatchObject({ tokensBefore: tokens(full), tokensAfter: tokens(received) });
    const first = received[2]!;
    expect(first.role).toBe('tool');
    const output =
      first.role === 'tool' && first.content[0]!.type === 'tool-result' ? first.content[0]!.output : undefined;
    expect(output).toMatchObject({
      type: 'text',
      value: expect.stringMatching(/^line 0\n[\s\S]*\[… snipped \d+ characters …\]/),
    });
    expect(received.slice(-6)).toEqual(full.slice(-6)); // the last two turns, untouched
    expect(received).toHaveLength(full.length);
    expect(pairsIntact(received)).toBe(true);
    expect(s.summarizer.doGenerateCalls).toHaveLength(0);
  });

  it('micro after snip: old tool results become placeholders that say what was removed', async () => {
    const messages = conversation(12, 3000);
    const s = setup({ maxTokens: 4000 });
    await generateText({ model: s.model, messages });
    const received = s.chat.doGenerateCalls[0]!.prompt;
    expect(s.reports[0]!.levelsRun).toEqual(['snip', 'micro']);
    expect(tokens(received)).toBeLessThanOrEqual(4000);
    expect(JSON.stringify(received[2])).toMatch(/result of read_file removed to save context: \d+ characters/);
    expect(received[1]).toEqual((await baseline(messages))[1]); // the tool call itself is kept
    expect(pairsIntact(received)).toBe(true);
    expect(s.summarizer.doGenerateCalls).toHaveLength(0);
  });

  it('collapse after micro: older turns fold into one-line entries, no model call', async () => {
    const messages = conversation(30, 300, 600);
    const full = await baseline(messages, 'You are a coding agent.');
    const s = setup({ maxTokens: 2500, collapseLineChars: 60 });
    await generateText({ model: s.model, system: 'You are a coding agent.', messages });
    const received = s.chat.doGenerateCalls[0]!.prompt;
    expect(s.reports[0]!.levelsRun).toEqual(['snip', 'micro', 'collapse']);
    expect(s.summarizer.doGenerateCalls).toHaveLength(0);
    expect(received[0]).toEqual(full[0]); // the system prompt
    expect(received[1]).toMatchObject({
      role: 'user',
      content: [{ type: 'text', text: expect.stringMatching(/^\[Earlier conversation, folded/) }],
    });
    expect(JSON.stringify(received[1])).toContain('assistant called read_file');
    expect(received.slice(2)).toEqual(full.slice(-5));
    expect(tokens(received)).toBeLessThanOrEqual(2500);
    expect(pairsIntact(received)).toBe(true);
  });

  it('auto after collapse: the old part is summarised by the model into the session summary', async () => {
    const messages = conversation(60, 300, 600);
    const s = setup({ maxTokens: 900, sessionId: 'thread-1' });
    await generateText({ model: s.model, messages });
    const received = s.chat.doGenerateCalls[0]!.prompt;

    expect(s.reports[0]!.levelsRun).toEqual(['snip', 'micro', 'collapse', 'auto']);
    expect(s.reports[0]!.tokensAfter).toBeLessThan(s.reports[0]!.tokensBefore);
    expect(received[0]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: '[Summary of the earlier conversation]\nThe user is reviewing src files one by one.' },
      ],
    });
    expect(received.slice(1)).toEqual((await baseline(messages)).slice(-5));
    expect(pairsIntact(received)).toBe(true);

    const call = s.summarizer.doGenerateCalls[0]!;
    expect(call.providerOptions).toEqual({ agentmem: { inject: false, extract: false } });
    expect(JSON.stringify(call.prompt)).toContain('Request 0:');
    expect(JSON.stringify(call.prompt)).toContain('Request 58:');
    expect(JSON.stringify(call.prompt)).not.toContain('Request 59:'); // the recent turns are not summarised
    const stored = await new SessionSummary(s.memory, { sessionId: 'thread-1', summarize: async () => '' }).latest();
    expect(stored?.content).toBe('The user is reviewing src files one by one.');
    expect(s.summaries[0]).toMatchObject({ updated: true, reason: 'forced', cost: { tokens: 340 } });
    expect(s.middleware.summaryUsage).toEqual({ calls: 1, inputTokens: 300, outputTokens: 40, totalTokens: 340 });
  });

  it('auto extends the stored summary with only the messages it does not cover yet', async () => {
    const messages = conversation(60, 300, 600);
    const s = setup({ maxTokens: 900, sessionId: 'thread-1' });
    await generateText({ model: s.model, messages });
    await s.middleware.idle();
    const calls = s.summarizer.doGenerateCalls.length;
    // The same conversation again: the summary covers the old part, no new model call.
    await generateText({ model: s.model, messages, providerOptions: { agentmem: { extract: false } } });
    expect(s.summarizer.doGenerateCalls).toHaveLength(calls);
    // One more turn: only the turn that left the recent window is summarised, with the summary so far.
    const longer: ModelMessage[] = [
      ...messages,
      { role: 'assistant', content: 'Look at src/next.ts.' },
      { role: 'user', content: 'And after that?' },
    ];
    await generateText({ model: s.model, messages: longer, providerOptions: { agentmem: { extract: false } } });
    expect(s.summarizer.doGenerateCalls).toHaveLength(calls + 1);
    const prompt = JSON.stringify(s.summarizer.doGenerateCalls.at(-1)!.prompt);
    expect(prompt).toContain('Summary so far:\\nThe user is reviewing src files one by one.');
    expect(prompt).toContain('Request 59:');
    expect(prompt).not.toContain('Request 58:');
  });

  it('a failing auto summary falls back to the deterministic levels and keeps the previous summary', async () => {
    const messages = conversation(60, 300, 600);
    const s = setup({ maxTokens: 900, sessionId: 'thread-1' });
    await new SessionSummary(s.memory, {
      sessionId: 'thread-1',
      summarize: async () => 'Earlier: the user set up CI.',
    }).update([{ role: 'user', parts: [{ type: 'text', text: 'set up CI' }] }]);
    s.summarizer.doGenerate = async () => {
      throw new Error('summary model down');
    };
    const result = await generateText({ model: s.model, messages, providerOptions: { agentmem: { extract: false } } });
    expect(result.text).toBe('Look at src/next.ts.');
    expect(s.errors.map((e) => [e.phase, String(e.error)])).toEqual([
      ['compact', expect.stringContaining('summary model down')],
    ]);
    expect(s.reports[0]!.levelsRun).toEqual(['snip', 'micro', 'collapse']);
    const received = s.chat.doGenerateCalls[0]!.prompt;
    expect(JSON.stringify(received[0])).toContain('summary so far: Earlier: the user set up CI.');
    expect(pairsIntact(received)).toBe(true);
    const stored = await new SessionSummary(s.memory, { sessionId: 'thread-1', summarize: async () => '' }).latest();
    expect(stored?.content).toBe('Earlier: the user set up CI.');
  });

  it('keeps the current tool call and its result together across the steps of a tool loop', async () => {
    const messages = conversation(12, 3000);
    const memory = new AgentMemory({ backend: new InMemoryBackend() });
    const chat = new MockLanguageModelV3({
      doGenerate: async ({ prompt }) =>
        prompt.at(-1)!.role === 'tool'
          ? textResult('src/next.ts has the bug.')
          : {
              ...textResult(''),
              content: [
                { type: 'tool-call', toolCallId: 'call-now', toolName: 'read_file', input: '{"path":"src/next.ts"}' },
              ],
              finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
            },
    });
    const reports: CompactionReport[] = [];
    const model = wrapLanguageModel({
      model: chat,
      middleware: sessionMiddleware({
        memory,
        model: summaryModel(),
        maxTokens: 4000,
        keepRecentTurns: 1,
        onCompaction: (r) => reports.push(r),
      }),
    });
    const result = await generateText({
      model,
      messages,
      tools: {
        read_file: tool({
          inputSchema: z.object({ path: z.string() }),
          execute: async ({ path }) => `${path}\n`.repeat(500),
        }),
      },
      stopWhen: stepCountIs(2),
    });
    expect(result.text).toBe('src/next.ts has the bug.');
    const second = chat.doGenerateCalls[1]!.prompt;
    expect(second.slice(-3).map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    expect(JSON.stringify(second.at(-1))).toContain('src/next.ts\\nsrc/next.ts'); // the fresh result, in full
    expect(reports.map((r) => r.levelsRun)).toEqual([
      ['snip', 'micro'],
      ['snip', 'micro'],
    ]);
    for (const call of chat.doGenerateCalls) {
      expect(pairsIntact(call.prompt)).toBe(true);
      expect(tokens(call.prompt)).toBeLessThanOrEqual(4000);
    }
  });

  it('leaves the prompt of a call with inject: false as it is', async () => {
    const messages = conversation(12, 3000);
    const s = setup({ maxTokens: 4000 });
    await generateText({ model: s.model, messages, providerOptions: { agentmem: { inject: false } } });
    expect(s.chat.doGenerateCalls[0]!.prompt).toEqual(await baseline(messages));
    expect(s.reports).toEqual([]);
  });

  it('compacts streamText prompts and passes the stream through unchanged', async () => {
    const messages = conversation(12, 3000);
    const s = setup({ maxTokens: 4000 });
    const result = streamText({ model: s.model, messages });
    expect(await result.text).toBe('Look at src/next.ts.');
    const received = s.chat.doStreamCalls[0]!.prompt;
    expect(tokens(received)).toBeLessThanOrEqual(4000);
    expect(pairsIntact(received)).toBe(true);
    expect(s.reports[0]!.levelsRun).toEqual(['snip', 'micro']);
  });

  it('keeps file parts and provider options of a snipped message', async () => {
    const messages: ModelMessage[] = [
      {
        role: 'user',
        content: [
          {
            type: 'text',
            text: 'x'.repeat(5000),
            providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } },
          },
          { type: 'file', data: 'aGVsbG8=', mediaType: 'text/plain', filename: 'notes.txt' },
        ],
      },
      { role: 'assistant', content: 'Noted.' },
      { role: 'user', content: 'Next question.' },
    ];
    const full = await baseline(messages);
    const s = setup({ maxTokens: tokens(full) - 500, keepRecentTurns: 1 });
    await generateText({ model: s.model, messages });
    const first = s.chat.doGenerateCalls[0]!.prompt[0]!;
    expect(s.reports[0]!.levelsRun).toEqual(['snip']);
    expect(first.role === 'user' && first.content[0]).toMatchObject({
      type: 'text',
      text: expect.stringContaining('[… snipped'),
      providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } },
    });
    expect(first.role === 'user' && first.content[1]).toEqual(full[0]!.role === 'user' && full[0]!.content[1]);
  });
});

describe('sessionMiddleware: session summary', () => {
  const turn = (i: number): ModelMessage[] => [
    { role: 'user', content: `Step ${i}: migrate module ${i} to ESM.` },
    { role: 'assistant', content: `Module ${i} migrated.` },
  ];
  const upTo = (n: number): ModelMessage[] => [
    ...Array.from({ length: n - 1 }, (_, i) => turn(i + 1)).flat(),
    turn(n)[0]!,
  ];

  it('updates only when the turn threshold is crossed, reports the cost, and stores it for the session', async () => {
    const s = setup({ maxTokens: 100_000, sessionId: 'thread-7', everyTurns: 2, everyTokens: 10_000 });
    await generateText({ model: s.model, messages: upTo(1) });
    await s.middleware.idle();
    expect(s.summaries.map((u) => u.reason)).toEqual(['below-threshold']);
    expect(s.summarizer.doGenerateCalls).toHaveLength(0);

    await generateText({ model: s.model, messages: upTo(2) });
    await s.middleware.idle();
    expect(s.summaries.map((u) => u.reason)).toEqual(['below-threshold', 'threshold']);
    expect(s.summaries[1]!.cost).toMatchObject({ tokens: 340 });
    const transcript = JSON.stringify(s.summarizer.doGenerateCalls[0]!.prompt);
    expect(transcript).toContain('Step 2: migrate module 2 to ESM.');
    expect(transcript).toContain('assistant: Look at src/next.ts.'); // the response is part of the conversation

    // One new turn since the update: below the threshold again.
    await generateText({ model: s.model, messages: upTo(3) });
    await s.middleware.idle();
    expect(s.summaries.at(-1)!.reason).toBe('below-threshold');
    expect(s.summarizer.doGenerateCalls).toHaveLength(1);
  });

  it('summarises the conversation as the application sent it, not the compacted prompt', async () => {
    const messages = conversation(30, 300, 600);
    const s = setup({ maxTokens: 2500, collapseLineChars: 60, sessionId: 'thread-c', everyTurns: 1 });
    await generateText({ model: s.model, messages });
    await s.middleware.idle();
    expect(s.reports[0]!.levelsRun).toEqual(['snip', 'micro', 'collapse']);
    expect(s.summaries.map((u) => u.reason)).toEqual(['threshold']);
    // The whole conversation (121 messages) plus the answer is covered, not the 7 messages the model saw.
    expect(s.summaries[0]!.summary?.metadata.messagesCovered).toBe(messages.length + 1);
  });

  it('updates on the token threshold too, after a streamed answer', async () => {
    const s = setup({ maxTokens: 100_000, sessionId: 'thread-8', everyTurns: 50, everyTokens: 20 });
    const result = streamText({ model: s.model, messages: upTo(1) });
    expect(await result.text).toBe('Look at src/next.ts.');
    await s.middleware.idle();
    expect(s.summaries.map((u) => u.reason)).toEqual(['threshold']);
  });

  it('a failed update keeps the previous summary and reports the error', async () => {
    const s = setup({ maxTokens: 100_000, sessionId: 'thread-9', everyTurns: 1 });
    await generateText({ model: s.model, messages: upTo(1) });
    await s.middleware.idle();
    s.summarizer.doGenerate = async () => {
      throw new Error('rate limited');
    };
    await generateText({ model: s.model, messages: upTo(2) });
    await s.middleware.idle();
    expect(s.summaries.map((u) => u.reason)).toEqual(['threshold', 'failed']);
    expect(s.summaries[1]!.summary?.content).toBe('The user is reviewing src files one by one.');
    expect(s.errors.map((e) => e.phase)).toEqual(['summary']);
  });

  it('is persisted and starts the next session of the thread first in the memory block', async () => {
    const memory = new AgentMemory({ backend: new InMemoryBackend() });
    await memory
      .withScope({ tenant: 'ada' })
      .remember({ content: 'The repository uses pnpm as package manager', type: 'project' });
    const summarizer = summaryModel(() => 'The user is migrating modules to ESM; modules 1-2 done, 3 next.');
    const session1 = sessionMiddleware({ memory, model: summarizer, maxTokens: 100_000, everyTurns: 2 });
    const call = { providerOptions: { agentmem: { sessionId: 'thread-42', tenant: 'ada' } } };
    await generateText({
      model: wrapLanguageModel({ model: mockChatModel(), middleware: session1 }),
      messages: upTo(2),
      ...call,
    });
    await session1.idle();

    // A new process: fresh middlewares over the same store, a new conversation on the same thread.
    const chat = mockChatModel();
    const model = wrapLanguageModel({
      model: chat,
      middleware: [
        agentMemoryMiddleware({ memory }),
        sessionMiddleware({ memory, model: summarizer, maxTokens: 100_000 }),
      ],
    });
    await generateText({ model, prompt: 'Which package manager do we use for module 3?', ...call });
    const system = chat.doGenerateCalls[0]!.prompt[0]!.content as string;
    expect(system.indexOf('## Session summary')).toBeGreaterThan(-1);
    expect(system.indexOf('## Session summary')).toBeLessThan(system.indexOf('## Relevant memories'));
    expect(system).toContain('The user is migrating modules to ESM; modules 1-2 done, 3 next.');
    // Another tenant, same thread id: not its summary.
    await generateText({
      model,
      prompt: 'Which package manager?',
      providerOptions: { agentmem: { sessionId: 'thread-42', tenant: 'bob' } },
    });
    expect(JSON.stringify(chat.doGenerateCalls[1]!.prompt)).not.toContain('migrating modules');
  });

  it('summary calls are left alone by agentmem middlewares wrapped around the summary model', async () => {
    const memory = new AgentMemory({ backend: new InMemoryBackend() });
    await memory.remember({ content: 'The user migrates modules to ESM', type: 'project' });
    const inner = summaryModel();
    const extractor = new MockLanguageModelV3({ doGenerate: async () => textResult('{"facts":[]}') });
    const memoryMw = agentMemoryMiddleware({ memory, extraction: { model: extractor } });
    const summarizer = wrapLanguageModel({
      model: inner,
      middleware: [
        memoryMw,
        sessionMiddleware({ memory, model: inner, maxTokens: 10, sessionId: 'thread-1', everyTurns: 1 }),
      ],
    });
    const s = setup({ maxTokens: 100_000, sessionId: 'thread-1', everyTurns: 1, model: summarizer });
    await generateText({ model: s.model, messages: upTo(1) });
    await s.middleware.idle();
    await memoryMw.idle();
    expect(s.summaries.map((u) => u.reason)).toEqual(['threshold']);
    expect(inner.doGenerateCalls).toHaveLength(1); // the summary call is not itself summarised
    expect(JSON.stringify(inner.doGenerateCalls[0]!.prompt)).not.toContain(CONTEXT_OPEN);
    expect(extractor.doGenerateCalls).toHaveLength(0);
  });
});

describe('sessionMiddleware with agentMemoryMiddleware', () => {
  for (const order of ['memory first', 'session first'] as const) {
    it(`compacts and keeps the memory block (${order})`, async () => {
      const memory = new AgentMemory({ backend: new InMemoryBackend() });
      await memory.remember({ content: 'Build logs live in ci/logs, read them before answering', type: 'project' });
      const chat = mockChatModel();
      const session = sessionMiddleware({ memory, model: summaryModel(), maxTokens: 4000, keepRecentTurns: 2 });
      const memoryMw = agentMemoryMiddleware({ memory });
      const middleware = order === 'memory first' ? [memoryMw, session] : [session, memoryMw];
      const messages = conversation(12, 3000);
      messages[messages.length - 1] = { role: 'user', content: 'Where do the build logs live?' };
      await generateText({
        model: wrapLanguageModel({ model: chat, middleware }),
        system: 'You are a coding agent.',
        messages,
      });

      const received = chat.doGenerateCalls[0]!.prompt;
      const system = received[0]!.content as string;
      expect(system.startsWith('You are a coding agent.')).toBe(true);
      expect(system).toContain(CONTEXT_OPEN);
      expect(system).toContain('Build logs live in ci/logs');
      expect(JSON.stringify(received)).toMatch(/result of read_file removed to save context/);
      expect(pairsIntact(received)).toBe(true);
      expect(received.at(-1)).toEqual({
        role: 'user',
        content: [{ type: 'text', text: 'Where do the build logs live?' }],
      });
      if (order === 'memory first') expect(tokens(received)).toBeLessThanOrEqual(4000); // the block counts against the budget
    });
  }
});

describe('sessionMiddleware: bad input', () => {
  const memory = new AgentMemory({ backend: new InMemoryBackend() });
  it('refuses missing memory, model or budget with a message that says what to pass', () => {
    expect(() => sessionMiddleware({} as never)).toThrow(AgentMemoryError);
    expect(() => sessionMiddleware({ memory } as never)).toThrow(/needs \{ model \}/);
    expect(() => sessionMiddleware({ memory, model: mockChatModel(), maxTokens: 0 })).toThrow(/maxTokens/);
    expect(() => sessionMiddleware({ memory, model: mockChatModel(), maxTokens: 10, keepRecentTurns: -1 })).toThrow(
      /keepRecentTurns must be a non-negative integer/,
    );
  });

  it('refuses a sessionId that is not a string, before calling the model', async () => {
    const s = setup({ maxTokens: 1000 });
    await expect(
      generateText({ model: s.model, prompt: 'hi', providerOptions: { agentmem: { sessionId: 42 } } }),
    ).rejects.toThrow(/sessionId must be a string/);
    expect(s.chat.doGenerateCalls).toHaveLength(0);
  });
});
