// A user's file: it must type-check, without casts, against ai 6 and ai 7
// (tsconfig.ai6.json / tsconfig.ai7.json resolve `ai` to each major).
import { agentMemoryMiddleware, sessionMiddleware } from '@agentmem/ai-sdk';
import { createAgentMemory, InMemoryBackend } from '@agentmem/core';
import { generateText, streamText, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';

export async function main() {
  const memory = await createAgentMemory({ backend: new InMemoryBackend() });
  const model = new MockLanguageModelV3();

  const single = wrapLanguageModel({ model, middleware: agentMemoryMiddleware({ memory }) });
  const both = wrapLanguageModel({
    model,
    middleware: [agentMemoryMiddleware({ memory }), sessionMiddleware({ memory, model, maxTokens: 4000 })],
  });
  await generateText({ model: single, prompt: 'hi', providerOptions: { agentmem: { tenant: 'u1' } } });
  streamText({ model: both, prompt: 'hi' });
}
