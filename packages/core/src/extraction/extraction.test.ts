import { describe, expect, it, vi } from 'vitest';
import { AgentMemory } from '../agent-memory';
import { InMemoryBackend } from '../backends';
import { BackgroundExtractor } from './background-extractor';
import { parseFacts, parseFactsFromText } from './parse-facts';

describe('parseFacts', () => {
  it('keeps well-formed facts, drops the rest, clamps importance', () => {
    expect(
      parseFacts({
        facts: [
          { content: ' Prefers pnpm ', type: 'user', importance: 0.9 },
          { content: 'no type', importance: 1 },
          { content: '', type: 'user' },
          { content: 'Deploys on Friday', type: 'project', importance: 7 },
          { content: 'Docs at https://x', type: 'reference' },
          'garbage',
        ],
      }),
    ).toEqual([
      { content: 'Prefers pnpm', type: 'user', importance: 0.9 },
      { content: 'Deploys on Friday', type: 'project', importance: 1 },
      { content: 'Docs at https://x', type: 'reference', importance: 0.5 },
    ]);
    expect(() => parseFacts({ nope: true })).toThrow(/list of facts/);
  });

  it("keeps a fact's well-formed entities; an unknown kind becomes `name`", () => {
    expect(
      parseFacts({
        facts: [
          {
            content: 'Maria volunteers at the Hope shelter',
            type: 'user',
            importance: 0.6,
            entities: [
              { name: 'Maria', kind: 'person' },
              { name: 'Hope shelter', kind: 'charity' },
              { kind: 'place' },
              'x',
            ],
          },
        ],
      }),
    ).toEqual([
      {
        content: 'Maria volunteers at the Hope shelter',
        type: 'user',
        importance: 0.6,
        entities: [
          { name: 'Maria', kind: 'person' },
          { name: 'Hope shelter', kind: 'name' },
        ],
      },
    ]);
  });

  it('reads JSON from prose and code fences', () => {
    expect(parseFactsFromText('Here:\n```json\n{"facts":[{"content":"Uses Vim","type":"user","importance":0.6}]}\n```')).toHaveLength(1);
    expect(parseFactsFromText('[{"content":"Uses Vim","type":"user"}]')).toHaveLength(1);
    expect(() => parseFactsFromText('I cannot help with that.')).toThrow(/no JSON list/);
  });
});

describe('BackgroundExtractor', () => {
  it('stores facts through the conflict check, once per exchange, and reports cost', async () => {
    const memory = new AgentMemory({ backend: new InMemoryBackend() });
    const reports: unknown[] = [];
    let version = 14;
    const extract = vi.fn(async () => ({
      facts: [
        { content: `The database is PostgreSQL ${version}`, type: 'project' as const, importance: 0.8 },
        { content: 'maybe likes jazz', type: 'user' as const, importance: 0.1 },
      ],
      usage: { inputTokens: 10, outputTokens: 5 },
    }));
    const extractor = new BackgroundExtractor({ extract, onExtraction: (r) => reports.push(r) });
    expect(extractor.schedule(memory, { user: 'we use pg 14', assistant: 'noted' })).toBe(true);
    expect(extractor.schedule(memory, { user: 'we use pg 14', assistant: 'noted' })).toBe(false);
    await extractor.idle();
    version = 16;
    extractor.schedule(memory, { user: 'we moved to pg 16', assistant: 'noted' });
    await extractor.idle();
    expect(extract).toHaveBeenCalledTimes(2);
    expect((await memory.recall('database PostgreSQL')).map((r) => r.memory.content)).toEqual(['The database is PostgreSQL 16']);
    expect(extractor.usage).toEqual({ calls: 2, inputTokens: 20, outputTokens: 10, totalTokens: 30 });
    expect(reports[1]).toMatchObject({ skipped: [{ content: 'maybe likes jazz' }], outcomes: [{ outcome: { superseded: [expect.any(String)] } }] });
  });

  it("links an extracted fact to the model's entities, also those its words never name", async () => {
    const memory = new AgentMemory({ backend: new InMemoryBackend() });
    const extractor = new BackgroundExtractor({
      extract: async () => ({
        facts: [
          {
            content: 'Her daughter turns six in August',
            type: 'user' as const,
            importance: 0.7,
            entities: [{ name: 'Maria', kind: 'person' as const }],
          },
        ],
      }),
    });
    extractor.schedule(memory, { user: "Maria's daughter turns six in August", assistant: 'noted' });
    await extractor.idle();
    const [fact] = await memory.entityMemories('Maria');
    expect(fact?.content).toBe('Her daughter turns six in August');
    expect(fact?.entities).toContainEqual({ key: 'maria', name: 'Maria', kind: 'person', source: 'model' });
    const [top] = await memory.recall('How old is Maria going to be?', { k: 1, mode: 'keyword', reinforce: false });
    expect(top?.signals.entity?.keys).toEqual(['maria']);
  });

  it('reports a failing extractor and lets the same exchange be tried again', async () => {
    const memory = new AgentMemory({ backend: new InMemoryBackend() });
    const onError = vi.fn();
    let fail = true;
    const extractor = new BackgroundExtractor({
      onError,
      extract: async () => {
        if (fail) throw new Error('model exploded');
        return { facts: [{ content: 'Likes tea', type: 'user', importance: 0.7 }] };
      },
    });
    extractor.schedule(memory, { user: 'I like tea', assistant: 'ok' });
    await extractor.idle();
    expect(onError).toHaveBeenCalledWith(expect.objectContaining({ message: 'model exploded' }));
    fail = false;
    expect(extractor.schedule(memory, { user: 'I like tea', assistant: 'ok' })).toBe(true);
    await extractor.idle();
    expect((await memory.stats()).total).toBe(1);
  });
});

describe('extraction context', () => {
  it('records the exchange a fact came from as its context: found by the user words, never its content', async () => {
    const memory = new AgentMemory({ backend: new InMemoryBackend() });
    const extract = async () => ({
      facts: [{ content: 'Staging runs PostgreSQL 16', type: 'project' as const, importance: 0.8 }],
    });
    const extractor = new BackgroundExtractor({ extract });
    extractor.schedule(memory, { user: 'which postgres does the qa cluster run?', assistant: 'x'.repeat(5000) });
    await extractor.idle();
    const [stored] = await memory.recall('qa cluster', { reinforce: false });
    expect(stored?.memory.content).toBe('Staging runs PostgreSQL 16');
    expect(stored?.memory.context).toMatch(/^user: which postgres does the qa cluster run\?\nassistant: x+…$/);
    expect(stored!.memory.context!.length).toBeLessThan(2100);
  });
});
