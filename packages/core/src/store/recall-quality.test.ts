import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { LOCOMO_DEV_PATH, loadLocomo, scoreQuestions, storeRetrievers, summarize } from '../../../../bench/locomo';
import { InMemoryBackend } from '../backends';
import { HashingEmbedder } from '../embedding';
import { MemoryStore } from './memory-store';

const open = () => MemoryStore.open({ backend: new InMemoryBackend(), embedder: new HashingEmbedder() });

describe('hybrid recall', () => {
  it('ranks first the one memory that shares a rare keyword with the query', async () => {
    const store = await open();
    // Many memories share the query's common words; only one has its rare one.
    await store.rememberMany([
      ...['beach', 'mountains', 'city', 'lake', 'countryside', 'island', 'desert', 'forest'].map((place) => ({
        content: `We planned a family trip to the ${place} next summer and the family trip planning took weeks`,
        type: 'user' as const,
      })),
      { content: 'Booked the ferry to Zanzibar', type: 'user' },
    ]);
    const [top] = await store.recall('when is our family trip to Zanzibar planned', { reinforce: false });
    expect(top?.memory.content).toBe('Booked the ferry to Zanzibar');
    expect(top?.signals.keyword?.rank).toBe(1);
  });
});

// LoCoMo (CC BY-NC 4.0) is never copied into the repository; it is read from ../shared/datasets when present.
const hasLocomo = existsSync(LOCOMO_DEV_PATH);

describe.skipIf(!hasLocomo)(
  `hybrid recall on LoCoMo dev conv-26 and conv-30${hasLocomo ? '' : ' (skipped: the ../shared/datasets folder with locomo-dev.json is absent)'}`,
  () => {
    it('finds at least as much evidence in the top 10 as keyword or dense recall alone', async () => {
      const conversations = loadLocomo().filter((c) => c.id === 'conv-26' || c.id === 'conv-30');
      expect(conversations).toHaveLength(2);
      const scores = [];
      for (const conversation of conversations) {
        const store = await open();
        scores.push(...(await scoreQuestions(conversation, await storeRetrievers(store, conversation), [10])));
        await store.close();
      }
      const { recall, questions } = summarize(scores);
      expect(questions).toBeGreaterThan(300);
      const r10 = (mode: string) => recall[mode]![0]!;
      expect(r10('hybrid')).toBeGreaterThanOrEqual(r10('keyword'));
      expect(r10('hybrid')).toBeGreaterThanOrEqual(r10('dense'));
    });
  },
);
