import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { AgentMemory, CONTEXT_OPEN, InMemoryBackend } from '@agentmem/core';
// ai 7 is installed as `ai7` (npm alias); `ai` is ai 6. ai 7 declares Node >= 22 but runs on Node 20 for these calls.
import { generateText, streamText, wrapLanguageModel } from 'ai7';
import { MockLanguageModelV4 } from 'ai7/test';
import { describe, expect, it } from 'vitest';
import { sessionMiddleware } from '../session';
import { mockChatModel } from '../testing';
import { agentMemoryMiddleware } from './agent-memory-middleware';

const typeTests = fileURLToPath(new URL('../../type-tests/', import.meta.url));
const tsc = fileURLToPath(new URL('../../../../node_modules/typescript/bin/tsc', import.meta.url));

describe('the middlewares type-check against ai 6 and ai 7', () => {
  // A user's file (type-tests/user-file.ts) with wrapLanguageModel({ model, middleware: agentMemoryMiddleware({ memory }) }).
  it.each(['ai6', 'ai7'])(
    '%s: wrapLanguageModel accepts agentMemoryMiddleware and sessionMiddleware',
    (major) => {
      let output = '';
      try {
        execFileSync(process.execPath, [tsc, '-p', `${typeTests}tsconfig.${major}.json`], { encoding: 'utf8' });
      } catch (error) {
        output = String((error as { stdout?: string }).stdout ?? error);
      }
      expect(output).toBe('');
    },
    120_000,
  );
});

// LanguageModelV4 results, written out: the package's test helpers build V3 ones.
function v4Model(reply = 'Use pnpm install.') {
  const usage = {
    inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: 5, text: 5, reasoning: 0 },
  };
  const finishReason = { unified: 'stop' as const, raw: 'stop' };
  return new MockLanguageModelV4({
    doGenerate: async () => ({ content: [{ type: 'text', text: reply }], finishReason, usage, warnings: [] }),
    doStream: async () => ({
      stream: new ReadableStream({
        start(controller) {
          controller.enqueue({ type: 'stream-start', warnings: [] });
          controller.enqueue({ type: 'text-start', id: 't' });
          controller.enqueue({ type: 'text-delta', id: 't', delta: reply });
          controller.enqueue({ type: 'text-end', id: 't' });
          controller.enqueue({ type: 'finish', finishReason, usage });
          controller.close();
        },
      }),
    }),
  });
}

const systemText = (prompt: readonly { role: string; content: unknown }[]) =>
  prompt
    .filter((m) => m.role === 'system')
    .map((m) => m.content as string)
    .join('\n');

describe('the middlewares at runtime on ai 7 (LanguageModelV4)', () => {
  it('injects memories for generateText and streamText', async () => {
    const memory = new AgentMemory({ backend: new InMemoryBackend() });
    await memory.remember({ content: 'The user prefers pnpm as package manager', type: 'user' });
    const model = v4Model();
    const wrapped = wrapLanguageModel({ model, middleware: agentMemoryMiddleware({ memory }) });

    const generated = await generateText({ model: wrapped, prompt: 'Which package manager should I use?' });
    expect(generated.text).toBe('Use pnpm install.');
    const streamed = streamText({ model: wrapped, prompt: 'Which package manager should I use?' });
    expect(await streamed.text).toBe('Use pnpm install.');

    for (const call of [model.doGenerateCalls[0]!, model.doStreamCalls[0]!]) {
      const system = systemText(call.prompt);
      expect(system.startsWith(CONTEXT_OPEN)).toBe(true);
      expect(system).toContain('The user prefers pnpm as package manager');
    }
  });

  it('compacts a long prompt under the budget with sessionMiddleware', async () => {
    const memory = new AgentMemory({ backend: new InMemoryBackend() });
    const model = v4Model('OK.');
    const reports: number[] = [];
    const wrapped = wrapLanguageModel({
      model,
      middleware: sessionMiddleware({
        memory,
        model: mockChatModel(() => 'summary'), // summaries go through this repository's `ai` (6)
        maxTokens: 1500,
        keepRecentTurns: 1,
        onCompaction: (report) => reports.push(report.tokensAfter),
      }),
    });
    const messages = Array.from({ length: 12 }, (_, i) => [
      { role: 'user' as const, content: `question ${i}: ${'details '.repeat(200)}` },
      { role: 'assistant' as const, content: `answer ${i}` },
    ]).flat();
    await generateText({ model: wrapped, messages: [...messages, { role: 'user', content: 'and now?' }] });

    expect(reports).toHaveLength(1);
    expect(reports[0]).toBeLessThanOrEqual(1500);
    const sent = JSON.stringify(model.doGenerateCalls[0]!.prompt);
    expect(sent).toContain('and now?');
    expect(sent.length).toBeLessThan(JSON.stringify(messages).length / 2);
  });
});
