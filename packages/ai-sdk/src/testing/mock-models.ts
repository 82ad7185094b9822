import type { LanguageModelV3GenerateResult, LanguageModelV3StreamPart, LanguageModelV3Usage } from '@ai-sdk/provider';
import { simulateReadableStream } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';

/** Test helpers: AI SDK mock models that answer with fixed text (used by tests and the example). */
export function usage(input: number, output: number): LanguageModelV3Usage {
  return {
    inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: output, text: output, reasoning: 0 },
  };
}

export function textResult(text: string, tokens: [number, number] = [10, 5]): LanguageModelV3GenerateResult {
  return {
    content: [{ type: 'text', text }],
    finishReason: { unified: 'stop', raw: 'stop' },
    usage: usage(...tokens),
    warnings: [],
  };
}

export function textChunks(text: string, tokens: [number, number] = [10, 5]): LanguageModelV3StreamPart[] {
  const words = text.match(/\S+\s*/g) ?? [];
  return [
    { type: 'stream-start', warnings: [] },
    { type: 'text-start', id: 't' },
    ...words.map((delta): LanguageModelV3StreamPart => ({ type: 'text-delta', id: 't', delta })),
    { type: 'text-end', id: 't' },
    { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: usage(...tokens) },
  ];
}

/** A chat model that replies `reply(lastUserText)` to generate and stream calls alike. */
export function mockChatModel(reply: (userText: string) => string = () => 'OK.') {
  const lastUser = (prompt: { role: string; content: unknown }[]) => {
    const message = [...prompt].reverse().find((m) => m.role === 'user');
    const parts = (message?.content ?? []) as { type: string; text?: string }[];
    return parts.map((p) => (p.type === 'text' ? (p.text ?? '') : '')).join('\n');
  };
  return new MockLanguageModelV3({
    doGenerate: async ({ prompt }) => textResult(reply(lastUser(prompt))),
    doStream: async ({ prompt }) => ({
      stream: simulateReadableStream({ chunks: textChunks(reply(lastUser(prompt))) }),
    }),
  });
}

/** An extraction model whose structured answer is `answer()` (an object is sent as JSON, a string as is). */
export function mockExtractor(answer: () => unknown, tokens: [number, number] = [120, 30]) {
  return new MockLanguageModelV3({
    provider: 'mock-extractor',
    doGenerate: async () => {
      const value = answer();
      return textResult(typeof value === 'string' ? value : JSON.stringify(value), tokens);
    },
  });
}
