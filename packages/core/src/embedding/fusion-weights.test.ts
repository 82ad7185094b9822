import { describe, expect, it } from 'vitest';
import { InMemoryBackend } from '../backends';
import { AgentMemoryError } from '../errors';
import { SkillRegistry } from '../skills';
import { MemoryStore } from '../store/memory-store';
import { FakeEmbedder } from '../testing';
import { HashingEmbedder } from './hashing-embedder';

const BAD = [
  { dense: Number.NaN, keyword: 1 },
  { dense: -1, keyword: 1 },
  { dense: 0, keyword: 0 },
  { dense: 1, keyword: Number.POSITIVE_INFINITY },
  { dense: 1 },
  null,
];

function code(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(AgentMemoryError);
    expect((error as Error).message).toMatch(/e\.g\. \{ dense: 1, keyword: 1 \}/);
    return (error as AgentMemoryError).code;
  }
  return undefined;
}

describe('fusion weights', () => {
  it('a MemoryStore refuses weights that would rank nothing or in reverse, and takes good ones', async () => {
    for (const weights of BAD)
      expect(code(() => new MemoryStore({ backend: new InMemoryBackend(), fusionWeights: weights as never }))).toBe(
        'INVALID_INPUT',
      );
    const store = new MemoryStore({ backend: new InMemoryBackend(), fusionWeights: { dense: 0, keyword: 1 } });
    await store.remember({ content: 'The cat sleeps on the sofa', type: 'user' });
    await store.remember({ content: 'Dogs bark at the mail carrier', type: 'user' });
    const hits = await store.recall('cat sofa');
    expect(hits[0]?.memory.content).toBe('The cat sleeps on the sofa');
    expect(hits[0]?.relevance).toBeGreaterThan(0);
  });

  it("refuses an embedder's bad weights when a store is made with it", () => {
    const embedder = Object.assign(new HashingEmbedder(), { fusionWeights: { dense: -0.5, keyword: 1 } });
    expect(code(() => new MemoryStore({ backend: new InMemoryBackend(), embedder }))).toBe('INVALID_INPUT');
  });

  it('a SkillRegistry refuses bad skillActivation fusionWeights', () => {
    const store = new MemoryStore({ backend: new InMemoryBackend(), embedder: new FakeEmbedder() });
    for (const weights of BAD)
      expect(code(() => new SkillRegistry(store, { fusionWeights: weights as never }))).toBe('INVALID_INPUT');
    expect(() => new SkillRegistry(store, { fusionWeights: { dense: 1, keyword: 0 } })).not.toThrow();
  });
});
