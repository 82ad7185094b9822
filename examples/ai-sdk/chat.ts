/**
 * A small chat loop over several turns with @agentmem/ai-sdk: memories are
 * learned from the conversation (background extraction), recalled into the
 * system prompt on later turns, a contradicted fact is superseded, and a skill
 * activates for a matching request.
 *
 *   npx tsx examples/ai-sdk/chat.ts             # offline, with ai/test mock models
 *   AI_GATEWAY_API_KEY=... npx tsx examples/ai-sdk/chat.ts   # a real model through the AI Gateway
 *
 * AGENTMEM_EXAMPLE_MODEL picks the gateway model (default openai/gpt-4o-mini).
 *
 * Recall here uses core's offline hashing embedder (it matches words, not
 * meaning). To switch embedder, pass one to the store, e.g.
 * `new AgentMemory({ backend, embedder: cohereEmbedder(), reranker: cohereReranker() })`
 * from @agentmem/cohere (CO_API_KEY; docs/cohere.md), or `aiSdkEmbedder(model, { dimension })`.
 */
import { pathToFileURL } from 'node:url';
import { agentMemoryMiddleware } from '@agentmem/ai-sdk';
import { AgentMemory, CONTEXT_OPEN, InMemoryBackend, type Memory } from '@agentmem/core';
import type { LanguageModelV3, LanguageModelV3CallOptions, LanguageModelV3Prompt } from '@ai-sdk/provider';
import { gateway, generateText, type LanguageModel, type ModelMessage, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';

export interface Turn {
  user: string;
  /** A file the user is working on, passed per call. */
  filePath?: string;
}

export const TURNS: Turn[] = [
  { user: 'Hi! I prefer pnpm over npm as package manager, and our API runs on PostgreSQL 14.' },
  { user: 'Which package manager should I use to install dependencies?' },
  { user: 'Update: the API now runs on PostgreSQL 16.' },
  { user: 'Write a Dockerfile for the API.', filePath: 'Dockerfile' },
];

export interface TurnLog {
  user: string;
  /** The context block the model received in its system prompt ('' when none). */
  injected: string;
  reply: string;
}

export interface ChatResult {
  turns: TurnLog[];
  memories: Memory[];
  extraction: { calls: number; totalTokens: number };
}

/** Runs the turns against `model`, with `extractor` learning facts in the background. */
export async function runChat(options: {
  model: LanguageModelV3;
  extractor: LanguageModel;
  turns?: Turn[];
  log?: (line: string) => void;
}): Promise<ChatResult> {
  const log = options.log ?? (() => {});
  const memory = new AgentMemory({ backend: new InMemoryBackend() });
  // A skill: instructions that join the prompt only when a request matches (keywords, meaning, file globs).
  await memory.skills.register({
    name: 'docker',
    description: 'Docker best practices',
    globPatterns: ['Dockerfile', 'docker-compose*.yml'],
    triggerKeywords: ['docker', 'container', 'compose'],
    content: '## Docker Guidelines\n- Always use multi-stage builds\n- Pin the base image version',
  });

  const injected: string[] = [];
  const middleware = agentMemoryMiddleware({
    memory,
    extraction: { model: options.extractor },
    onError: (error, { phase }) => log(`  ! ${phase} failed: ${String(error)}`),
    onExtraction: (report) => {
      for (const { fact, outcome } of report.outcomes) {
        const superseded = outcome.superseded.length ? ` (supersedes ${outcome.superseded.length})` : '';
        log(`  + learned [${fact.type}] ${fact.content}${superseded}`);
      }
    },
  });
  // A second, innermost middleware only to show what the model received.
  const spy = {
    specificationVersion: 'v3' as const,
    transformParams: async ({ params }: { params: LanguageModelV3CallOptions }) => {
      injected.push(contextBlockOf(params.prompt));
      return params;
    },
  };
  const model = wrapLanguageModel({ model: options.model, middleware: [middleware, spy] });

  const messages: ModelMessage[] = [];
  const turns: TurnLog[] = [];
  for (const turn of options.turns ?? TURNS) {
    log(`\nuser> ${turn.user}`);
    messages.push({ role: 'user', content: turn.user });
    const result = await generateText({
      model,
      system: 'You are a concise coding assistant.',
      messages,
      providerOptions: turn.filePath ? { agentmem: { filePath: turn.filePath } } : undefined,
    });
    messages.push(...result.response.messages);
    const block = injected.at(-1) ?? '';
    if (block) log(block.replace(/^/gm, '  | '));
    log(`assistant> ${result.text}`);
    turns.push({ user: turn.user, injected: block, reply: result.text });
    await middleware.idle(); // a chat UI would not wait; the example does, to show what was learned
  }

  const memories: Memory[] = [];
  for await (const m of memory.memories()) memories.push(m);
  const { calls, totalTokens } = middleware.extractionUsage;
  log(`\nmemories: ${memories.map((m) => `[${m.type}] ${m.content}`).join('; ')}`);
  log(`extraction: ${calls} calls, ${totalTokens} tokens`);
  return { turns, memories, extraction: { calls, totalTokens } };
}

function contextBlockOf(prompt: LanguageModelV3Prompt): string {
  const first = prompt[0];
  if (first?.role !== 'system') return '';
  const start = first.content.indexOf(CONTEXT_OPEN);
  return start < 0 ? '' : first.content.slice(start);
}

// ----------------------------------------------------------------- offline models

function lastUserText(prompt: LanguageModelV3Prompt): string {
  const message = [...prompt].reverse().find((m) => m.role === 'user');
  if (message?.role !== 'user') return '';
  return message.content.map((p) => (p.type === 'text' ? p.text : '')).join('\n');
}

const usage = (input: number, output: number) => ({
  inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: output, text: output, reasoning: 0 },
});

/** A scripted chat model that answers from what is in its system prompt, as a real one would. */
export function offlineChatModel() {
  return new MockLanguageModelV3({
    modelId: 'offline-chat',
    doGenerate: async ({ prompt }) => {
      const system = prompt[0]?.role === 'system' ? prompt[0].content : '';
      const user = lastUserText(prompt);
      let text = 'Got it.';
      if (/install/i.test(user))
        text = /pnpm/.test(system) ? 'Run `pnpm install` (you prefer pnpm).' : 'Run `npm install`.';
      else if (/dockerfile/i.test(user)) {
        const pg = system.match(/PostgreSQL (\d+)/)?.[1];
        const multiStage = /multi-stage/i.test(system);
        text = `Here is ${multiStage ? 'a multi-stage Dockerfile' : 'a Dockerfile'} for the API${pg ? ` with a PostgreSQL ${pg} client` : ''}.`;
      }
      return {
        content: [{ type: 'text', text }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage: usage(80, 20),
        warnings: [],
      };
    },
  });
}

/** A scripted extractor: picks preferences and versions out of the user's words, as structured output. */
export function offlineExtractor() {
  return new MockLanguageModelV3({
    modelId: 'offline-extractor',
    doGenerate: async ({ prompt }) => {
      const exchange = lastUserText(prompt);
      const user = exchange.match(/<user>\n([\s\S]*?)\n<\/user>/)?.[1] ?? '';
      const facts: { content: string; type: string; importance: number }[] = [];
      const prefers = user.match(/I prefer (\w+) over (\w+)( as [\w ]+)?/i);
      if (prefers) {
        facts.push({
          content: `The user prefers ${prefers[1]} over ${prefers[2]}${prefers[3] ?? ''}`,
          type: 'user',
          importance: 0.9,
        });
      }
      const pg = user.match(/PostgreSQL (\d+)/);
      if (pg) facts.push({ content: `The API runs on PostgreSQL ${pg[1]}`, type: 'project', importance: 0.7 });
      const text = JSON.stringify({ facts });
      return {
        content: [{ type: 'text', text }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage: usage(150, 25),
        warnings: [],
      };
    },
  });
}

async function main() {
  const key = process.env.AI_GATEWAY_API_KEY;
  const real = key ? (process.env.AGENTMEM_EXAMPLE_MODEL ?? 'openai/gpt-4o-mini') : undefined;
  console.log(
    real
      ? `Using ${real} through the AI Gateway.`
      : 'Offline: ai/test mock models (set AI_GATEWAY_API_KEY for a real model).',
  );
  await runChat({
    model: real ? gateway(real) : offlineChatModel(),
    extractor: real ? gateway(real) : offlineExtractor(),
    log: (line) => console.log(line),
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error) => {
    console.error(error);
    process.exitCode = 1;
  });
}
