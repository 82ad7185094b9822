import { seededRandom } from '@agentmem/core/testing';
import { SyntheticEmbeddings } from '@langchain/core/utils/testing';
import { InMemoryStore, type Item } from '@langchain/langgraph-checkpoint';
import { expect } from 'vitest';
import type { AgentMemoryStore } from './agent-memory-store';

const plain = (item: Item | null) => (item ? { namespace: item.namespace, key: item.key, value: item.value } : null);
const ids = (items: Item[]) => items.map((i) => `${i.namespace.join('/')}#${i.key}`).sort();

/**
 * Runs one seeded random sequence of put / delete / get / search /
 * listNamespaces on `ours` and on LangGraph's InMemoryStore, and expects the
 * same answers at every step. Shared by the tests of every backend the store runs on.
 */
export async function expectSameAsInMemoryStore(ours: AgentMemoryStore, seed: number, steps = 150): Promise<void> {
  const random = seededRandom(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)]!;
  const reference = new InMemoryStore({
    index: { dims: 16, embeddings: new SyntheticEmbeddings({ vectorSize: 16 }) },
  });
  const namespaces = [['users', 'u1'], ['users', 'u2'], ['users', 'u1', 'prefs'], ['docs'], ['docs', 'public', 'v1']];
  const keys = ['a', 'b', 'c', 'd'];
  const colours = ['red', 'green', 'blue'];
  for (let step = 0; step < steps; step++) {
    const roll = random();
    const ns = pick(namespaces);
    const key = pick(keys);
    if (roll < 0.4) {
      const value = {
        colour: pick(colours),
        size: Math.floor(random() * 10),
        text: `item ${key} in ${ns.join(' ')}`,
      };
      await reference.put(ns, key, value);
      await ours.put(ns, key, value);
    } else if (roll < 0.5) {
      await reference.delete(ns, key);
      await ours.delete(ns, key);
    } else if (roll < 0.7) {
      expect(plain(await ours.get(ns, key)), `get ${ns}/${key} at step ${step}`).toEqual(
        plain(await reference.get(ns, key)),
      );
    } else if (roll < 0.9) {
      const prefix = ns.slice(0, 1 + Math.floor(random() * ns.length));
      const filter = pick<Record<string, unknown>>([
        { colour: pick(colours) },
        { size: { [pick(['$gt', '$lte', '$ne'])]: Math.floor(random() * 10) } },
        { size: { $in: [1, 2, 3] }, colour: { $nin: ['red'] } },
        // LangGraph's edge cases: an empty operator object matches anything, a mixed one compares by identity.
        { colour: {} },
        { size: { $gt: 1, note: 2 } },
      ]);
      // Semantic search is compared by membership: with a limit above the item count both stores return
      // every match (scored or topped up unscored), whatever their ranking.
      const options =
        random() < 0.5 ? { filter, limit: 1000 } : { filter, limit: 1000, query: `${pick(colours)} item ${key}` };
      expect(
        ids(await ours.search(prefix, options)),
        `search ${prefix} ${JSON.stringify(options)} at step ${step}`,
      ).toEqual(ids(await reference.search(prefix, options)));
    } else {
      const options =
        random() < 0.5
          ? { prefix: ns.slice(0, 1) }
          : { suffix: [ns.at(-1)!], maxDepth: random() < 0.5 ? 2 : undefined };
      // LangGraph's InMemoryStore keeps listing a namespace after its last item is deleted; a database store
      // (and ours) lists namespaces that hold items. Compare on those: list without maxDepth, keep the
      // namespaces that hold items, then truncate to maxDepth the way LangGraph does.
      const { maxDepth, ...conditions } = options as { maxDepth?: number };
      const held: string[][] = [];
      for (const listed of await reference.listNamespaces({ ...conditions, limit: 1000 })) {
        const items = await reference.search(listed, { limit: 1000 });
        if (items.some((i) => i.namespace.join('/') === listed.join('/'))) held.push(listed);
      }
      const truncated = maxDepth === undefined ? held : held.map((ns) => ns.slice(0, maxDepth));
      const expected = [...new Map(truncated.map((ns) => [ns.join(':'), ns])).values()].sort((a, b) =>
        a.join(':').localeCompare(b.join(':')),
      );
      expect(
        await ours.listNamespaces({ ...options, limit: 1000 }),
        `listNamespaces ${JSON.stringify(options)} at step ${step}`,
      ).toEqual(expected);
    }
  }
}
