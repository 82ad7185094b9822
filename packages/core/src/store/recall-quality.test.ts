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

describe('hybrid recall with a lexical embedder', () => {
  const counting = () => {
    const backend = new InMemoryBackend();
    const searches = { dense: 0, keyword: 0 };
    const search = backend.search.bind(backend);
    backend.search = (request) => {
      searches[request.mode as 'dense' | 'keyword']++;
      return search(request);
    };
    return { backend, searches };
  };

  it('skips the full vector scan when keyword hits fill the candidate pool, and ranks the same', async () => {
    const { backend, searches } = counting();
    const store = await MemoryStore.open({ backend, embedder: new HashingEmbedder() });
    await store.rememberMany(
      Array.from({ length: 80 }, (_, i) => ({
        content: `deploy note ${i}: the deploy ran ${i % 7} times`,
        type: 'user' as const,
      })),
    );
    const hybrid = await store.recall('how many times did the deploy run', { k: 5, reinforce: false });
    expect(searches).toEqual({ dense: 0, keyword: 1 });
    const keyword = await store.recall('how many times did the deploy run', {
      k: 5,
      mode: 'keyword',
      reinforce: false,
    });
    // Every note ties on BM25: keyword mode keeps them in id order, hybrid lets dense similarity break the tie.
    expect(hybrid.map((r) => r.signals.keyword?.score)).toEqual(keyword.map((r) => r.signals.keyword?.score));
    expect(hybrid.every((r) => r.signals.dense !== undefined && r.signals.keyword !== undefined)).toBe(true);
  });

  it('still scans vectors when keyword hits are few, so a misspelt query finds its memory', async () => {
    const { backend, searches } = counting();
    const store = await MemoryStore.open({ backend, embedder: new HashingEmbedder() });
    await store.rememberMany([
      { content: 'Caroline is studying psychology and counseling', type: 'user' },
      { content: 'The weekly team meeting moved to Thursday', type: 'user' },
    ]);
    const [top] = await store.recall('her field: psycology', { k: 1, reinforce: false });
    expect(searches.dense).toBe(1);
    expect(top?.memory.content).toBe('Caroline is studying psychology and counseling');
    expect(top?.signals.keyword).toBeUndefined();
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
