import { describe, expect, it } from 'vitest';
import { InMemoryBackend } from '../backends';
import { AgentMemoryError } from '../errors';
import { FakeEmbedder } from '../testing/fake-embedder';
import { createAgentMemory } from './agent-memory';

async function store() {
  const embedder = new FakeEmbedder();
  const memory = await createAgentMemory({ backend: new InMemoryBackend(), embedder });
  await memory.remember({ content: 'Deploys go through ArgoCD.', type: 'project' });
  embedder.calls.length = 0;
  return { memory, embedder };
}

async function refused(promise: Promise<unknown>): Promise<AgentMemoryError> {
  const error = await promise.catch((e: unknown) => e);
  expect(AgentMemoryError.hasCode(error, 'INVALID_INPUT'), String(error)).toBe(true);
  return error as AgentMemoryError;
}

describe('size limits come before any embedding, in every write and read path', () => {
  it('an 8 MB content is refused by the conflict-checked write before anything is embedded', async () => {
    const { memory, embedder } = await store();
    const error = await refused(
      memory.rememberWithConflictCheck({ content: 'x'.repeat(8 * 1024 * 1024), type: 'user' }),
    );
    expect(error.message).toMatch(/the limit is 32000/);
    expect(embedder.calls).toEqual([]);
  });

  it('a 2 MB query is refused by recall and contextFor before anything is embedded', async () => {
    const { memory, embedder } = await store();
    const query = 'q'.repeat(2 * 1024 * 1024);
    expect((await refused(memory.recall(query))).message).toMatch(/the limit is 32000/);
    expect((await refused(memory.contextFor(query))).message).toMatch(/the limit is 32000/);
    expect(embedder.calls).toEqual([]);
  });
});

describe('the ingest policy: one cleaning for every write', () => {
  it('NUL, terminal escapes and control characters are removed, lone surrogates replaced, on remember, update and the conflict-checked write', async () => {
    const { memory } = await store();
    const dirty = 'Uses\u0000 \u001b[31mpnpm\u001b[0m\u0007 \ud800 v9\r\n\tok';
    const clean = 'Uses pnpm \uFFFD v9\r\n\tok';
    expect((await memory.remember({ content: dirty, type: 'user' })).content).toBe(clean);
    const other = await memory.remember({ content: 'Prefers tabs.', type: 'user' });
    expect((await memory.update(other.id, { content: `${dirty} again` })).content).toBe(`${clean} again`);
    const checked = await memory.rememberWithConflictCheck({
      content: `Runs \u0000CI\u009b2J nightly`,
      type: 'project',
    });
    expect(checked.memory?.content).toBe('Runs CI nightly');
  });

  it('text that is nothing but control characters is empty, and refused', async () => {
    const { memory } = await store();
    await refused(memory.remember({ content: '\u0000\u001b[2J\u0007', type: 'user' }));
  });
});
