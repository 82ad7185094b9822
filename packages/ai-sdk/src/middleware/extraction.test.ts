import { AgentMemory, type ExtractionReport, InMemoryBackend, type Memory } from '@agentmem/core';
import { generateText, type LanguageModel, simulateReadableStream, streamText, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it, vi } from 'vitest';
import { mockChatModel, mockExtractor, textChunks, textResult } from '../testing';
import { agentMemoryMiddleware } from './agent-memory-middleware';

async function all(memory: AgentMemory, options?: Parameters<AgentMemory['memories']>[0]): Promise<Memory[]> {
  const out: Memory[] = [];
  for await (const m of memory.memories(options)) out.push(m);
  return out;
}

const facts = (...items: [string, string, number][]) => ({
  facts: items.map(([content, type, importance]) => ({ content, type, importance })),
});

function setup(answer: () => unknown, extra: Partial<Parameters<typeof agentMemoryMiddleware>[0]> = {}) {
  const memory = new AgentMemory({ backend: new InMemoryBackend() });
  const extractor = mockExtractor(answer);
  const errors: [string, unknown][] = [];
  const reports: ExtractionReport[] = [];
  const middleware = agentMemoryMiddleware({
    memory,
    extraction: { model: extractor },
    onError: (error, { phase }) => errors.push([phase, error]),
    onExtraction: (report) => reports.push(report),
    ...extra,
  });
  const model = mockChatModel(() => 'Noted, I will use pnpm from now on.');
  return { memory, extractor, middleware, model, wrapped: wrapLanguageModel({ model, middleware }), errors, reports };
}

describe('agentMemoryMiddleware: extraction', () => {
  it('stores the facts the extraction model proposes after generateText, with their types and token cost', async () => {
    const { memory, extractor, middleware, wrapped, reports, errors } = setup(() =>
      facts(['The user prefers pnpm over npm', 'user', 0.9], ['The repo is a TypeScript monorepo', 'project', 0.6]),
    );
    const { text } = await generateText({
      model: wrapped,
      prompt: 'Please always use pnpm, never npm, in this TypeScript monorepo.',
    });
    expect(text).toBe('Noted, I will use pnpm from now on.');
    await middleware.idle();

    const stored = await all(memory);
    expect(stored.map((m) => [m.type, m.content]).sort()).toEqual([
      ['project', 'The repo is a TypeScript monorepo'],
      ['user', 'The user prefers pnpm over npm'],
    ]);
    expect(stored.find((m) => m.type === 'user')!.importance).toBe(0.9);
    expect(errors).toEqual([]);

    // The extractor saw the exchange, and no memory block of its own.
    const extractorPrompt = JSON.stringify(extractor.doGenerateCalls[0]!.prompt);
    expect(extractorPrompt).toContain('Please always use pnpm');
    expect(extractorPrompt).toContain('Noted, I will use pnpm from now on.');
    expect(extractor.doGenerateCalls[0]!.responseFormat?.type).toBe('json');

    expect(reports).toHaveLength(1);
    expect(reports[0]!.usage).toEqual({ inputTokens: 120, outputTokens: 30, totalTokens: 150 });
    expect(middleware.extractionUsage).toEqual({ calls: 1, inputTokens: 120, outputTokens: 30, totalTokens: 150 });
  });

  it('extracts after streamText finishes, passing the stream through unchanged', async () => {
    const { memory, middleware, wrapped, model } = setup(() => facts(['The user prefers pnpm over npm', 'user', 0.9]));
    const plain = streamText({
      model: mockChatModel(() => 'Noted, I will use pnpm from now on.'),
      prompt: 'Use pnpm.',
    });
    const plainChunks: unknown[] = [];
    for await (const part of plain.fullStream) plainChunks.push(part);

    const result = streamText({ model: wrapped, prompt: 'Use pnpm.' });
    const chunks: unknown[] = [];
    for await (const part of result.fullStream) chunks.push(part);
    expect(JSON.stringify(chunks.filter(isText))).toEqual(JSON.stringify(plainChunks.filter(isText)));
    expect(await result.text).toBe('Noted, I will use pnpm from now on.');
    expect(model.doStreamCalls).toHaveLength(1);

    await middleware.idle();
    expect((await all(memory)).map((m) => m.content)).toEqual(['The user prefers pnpm over npm']);
  });

  it('runs in the background: the call and the stream finish while extraction is still pending', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const memory = new AgentMemory({ backend: new InMemoryBackend() });
    const extractor = new MockLanguageModelV3({
      doGenerate: async () => {
        await gate;
        return textResult(JSON.stringify(facts(['The user prefers pnpm over npm', 'user', 0.9])));
      },
    });
    const middleware = agentMemoryMiddleware({ memory, extraction: { model: extractor } });
    const wrapped = wrapLanguageModel({ model: mockChatModel(() => 'Noted.'), middleware });

    expect((await generateText({ model: wrapped, prompt: 'Use pnpm.' })).text).toBe('Noted.');
    expect(await streamText({ model: wrapped, prompt: 'Use pnpm, really.' }).text).toBe('Noted.');
    await vi.waitFor(() => expect(extractor.doGenerateCalls).toHaveLength(2)); // both started, neither finished
    let idle = false;
    const waiting = middleware.idle().then(() => {
      idle = true;
    });
    await Promise.resolve();
    expect(idle).toBe(false);
    expect(await all(memory)).toEqual([]);

    release();
    await waiting;
    expect((await all(memory)).map((m) => m.content)).toEqual(['The user prefers pnpm over npm']);
  });

  it('does not extract from a stream that ended in an error', async () => {
    const { extractor, middleware } = setup(() => facts(['The user prefers pnpm over npm', 'user', 0.9]));
    const failing = new MockLanguageModelV3({
      doStream: async () => ({
        stream: simulateReadableStream({
          chunks: [
            ...textChunks('Use pnpm').slice(0, 3),
            { type: 'error', error: new Error('connection reset') } as const,
          ],
        }),
      }),
    });
    const result = streamText({
      model: wrapLanguageModel({ model: failing, middleware }),
      prompt: 'Use pnpm.',
      onError: () => {},
    });
    await result.consumeStream();
    await middleware.idle();
    expect(extractor.doGenerateCalls).toHaveLength(0);
  });

  it('resolves a conflict with a stored memory by superseding it', async () => {
    const { memory, middleware, wrapped, reports } = setup(() => facts(['The API uses PostgreSQL 16', 'project', 0.8]));
    const old = await memory.remember({ content: 'The API uses PostgreSQL 14', type: 'project' });
    await generateText({ model: wrapped, prompt: 'We upgraded the API database to PostgreSQL 16.' });
    await middleware.idle();

    const outcome = reports[0]!.outcomes[0]!.outcome;
    expect(outcome.resolution).toBe('supersede');
    expect(outcome.superseded).toEqual([old.id]);
    expect((await memory.get(old.id))!.supersededBy).toBe(outcome.memory!.id);
    const recalled = await memory.recall('Which PostgreSQL version does the API use?');
    expect(recalled.map((r) => r.memory.content)).toEqual(['The API uses PostgreSQL 16']);
  });

  it('survives an extractor that throws: the call succeeds and onError hears about it', async () => {
    const { memory, middleware, wrapped, errors } = setup(() => {
      throw new Error('extractor is down');
    });
    const { text } = await generateText({ model: wrapped, prompt: 'Use pnpm.' });
    expect(text).toBe('Noted, I will use pnpm from now on.');
    await middleware.idle();
    expect(errors).toHaveLength(1);
    expect(errors[0]![0]).toBe('extract');
    expect(String(errors[0]![1])).toContain('extractor is down');
    expect(await all(memory)).toEqual([]);
  });

  it('survives an extractor that returns garbage: the call succeeds, onError hears about it, nothing is stored', async () => {
    for (const garbage of [
      'this is not JSON',
      'Sorry, I cannot help with that.',
      { facts: 'none' },
      { memories: [] },
    ]) {
      const { memory, middleware, wrapped, errors } = setup(() => garbage);
      const { text } = await generateText({ model: wrapped, prompt: 'Use pnpm.' });
      expect(text).toBe('Noted, I will use pnpm from now on.');
      await middleware.idle();
      expect(errors.map(([phase]) => phase)).toEqual(['extract']);
      expect(await all(memory)).toEqual([]);
      // The unusable answer was still paid for.
      expect(middleware.extractionUsage).toEqual({ calls: 1, inputTokens: 120, outputTokens: 30, totalTokens: 150 });
    }
  });

  it('keeps the well-formed facts of an answer that misses the schema and drops the rest', async () => {
    const { memory, middleware, wrapped, errors, reports } = setup(
      () =>
        '```json\n' +
        JSON.stringify({
          facts: [
            { content: 'The user prefers pnpm over npm', type: 'user', importance: 0.9 },
            { content: 'x', type: 'opinion', importance: 0.5 },
            { content: 'no type' },
          ],
        }) +
        '\n```',
    );
    await generateText({ model: wrapped, prompt: 'Use pnpm.' });
    await middleware.idle();
    expect(errors).toEqual([]);
    expect(reports[0]!.facts).toEqual([{ content: 'The user prefers pnpm over npm', type: 'user', importance: 0.9 }]);
    expect(reports[0]!.usage.totalTokens).toBe(150); // the cost is reported from the failed structured parse too
    expect((await all(memory)).map((m) => m.content)).toEqual(['The user prefers pnpm over npm']);
  });

  it('never extracts the same exchange twice (middleware applied twice, repeated call)', async () => {
    const { extractor, middleware, model } = setup(() => facts(['The user prefers pnpm over npm', 'user', 0.9]));
    const twice = wrapLanguageModel({ model, middleware: [middleware, middleware] });
    await generateText({ model: twice, prompt: 'Use pnpm.' });
    await generateText({ model: twice, prompt: 'Use pnpm.' });
    await middleware.idle();
    expect(model.doGenerateCalls).toHaveLength(2);
    expect(extractor.doGenerateCalls).toHaveLength(1);
    await generateText({ model: twice, prompt: 'Use pnpm, please.' });
    await middleware.idle();
    expect(extractor.doGenerateCalls).toHaveLength(2);
  });

  it('skips facts below minImportance, and respects per-call switches and scope', async () => {
    const { memory, extractor, middleware, wrapped, reports } = setup(
      () => facts(['The user prefers pnpm over npm', 'user', 0.9], ['The user said hello', 'user', 0.1]),
      {},
    );
    await generateText({
      model: wrapped,
      prompt: 'Hello! Use pnpm.',
      providerOptions: { agentmem: { extract: false } },
    });
    await middleware.idle();
    expect(extractor.doGenerateCalls).toHaveLength(0);

    await generateText({
      model: wrapped,
      prompt: 'Hello! Use pnpm.',
      providerOptions: { agentmem: { userId: 'alice' } },
    });
    await middleware.idle();
    expect(reports[0]!.skipped.map((f) => f.content)).toEqual(['The user said hello']);
    expect(reports[0]!.tenant).toBe('alice');
    expect(await all(memory)).toEqual([]);
    expect((await all(memory.withScope({ tenant: 'alice' }))).map((m) => m.content)).toEqual([
      'The user prefers pnpm over npm',
    ]);
  });

  it('with auto off, extracts only calls that ask for it', async () => {
    const memory = new AgentMemory({ backend: new InMemoryBackend() });
    const extractor = mockExtractor(() => facts(['The user prefers pnpm over npm', 'user', 0.9]));
    const middleware = agentMemoryMiddleware({ memory, extraction: { model: extractor, auto: false } });
    const wrapped = wrapLanguageModel({ model: mockChatModel(), middleware });
    await generateText({ model: wrapped, prompt: 'Use pnpm.' });
    await middleware.idle();
    expect(extractor.doGenerateCalls).toHaveLength(0);
    await generateText({ model: wrapped, prompt: 'Use pnpm.', providerOptions: { agentmem: { extract: true } } });
    await middleware.idle();
    expect(extractor.doGenerateCalls).toHaveLength(1);
  });

  it('an extractor wrapped with the same middleware is neither injected into nor extracted from', async () => {
    const memory = new AgentMemory({ backend: new InMemoryBackend() });
    await memory.remember({ content: 'The user prefers pnpm as package manager', type: 'user' });
    const rawExtractor = mockExtractor(() => facts(['The user uses pnpm workspaces', 'user', 0.7]));
    const extraction: { model: LanguageModel } = { model: rawExtractor };
    const middleware = agentMemoryMiddleware({ memory, extraction });
    extraction.model = wrapLanguageModel({ model: rawExtractor, middleware }); // e.g. one wrapped model for everything
    await generateText({
      model: wrapLanguageModel({ model: mockChatModel(), middleware }),
      prompt: 'Set up pnpm package manager workspaces.',
    });
    await middleware.idle();
    expect(rawExtractor.doGenerateCalls).toHaveLength(1);
    expect(JSON.stringify(rawExtractor.doGenerateCalls[0]!.prompt)).not.toContain('agentmem-context');
  });

  it('refuses an extraction setting without a model', () => {
    const memory = new AgentMemory({ backend: new InMemoryBackend() });
    expect(() => agentMemoryMiddleware({ memory, extraction: {} as never })).toThrow(/extraction needs \{ model \}/);
    expect(() => agentMemoryMiddleware({ memory, extraction: { model: mockChatModel(), minImportance: 2 } })).toThrow(
      /minImportance/,
    );
    expect(() =>
      agentMemoryMiddleware({ memory, extraction: { model: mockChatModel(), resolution: 'newest' as never } }),
    ).toThrow(/Unknown extraction.resolution "newest": use one of supersede, keep_both, keep_existing/);
    expect(() => agentMemoryMiddleware({} as never)).toThrow(/needs \{ memory \}/);
  });
});

function isText(part: unknown): boolean {
  return (
    typeof part === 'object' &&
    part !== null &&
    ['text-start', 'text-delta', 'text-end'].includes((part as { type: string }).type)
  );
}
