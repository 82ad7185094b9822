/**
 * Leave-one-conversation-out (LOCO) over recall options: `npm run bench -- locomo --loco GRID`, where
 * GRID is a JSON array of recall options (`'[{"listFocus":0.03},{}]'`; the first is the baseline).
 * Each conversation is stored once per mode and every option set asked of it; each set gets its
 * pooled row, and then, for every conversation, the set with the best R@10 on the other
 * conversations (R@5 breaks ties, then the earlier set) among those that lower no category there
 * against the baseline is scored on the held-out one. The LOCO row pools those held-out scores: what
 * a weight chosen on the data would give on a conversation it never saw. `--json` prints
 * `{ mode, rows: [{ options, R@5, R@10, byCategory, perConversation }], loco: { R@5, R@10, byCategory, chosen } }`.
 */

import { HashingEmbedder, ingestCase, locomoSuite, type MemoryStore, type RecallOptions } from '@agentmem/core';
import { backendFactories, CATEGORY_NAMES, type IngestMode, type LocomoConversation } from './locomo';

type Options = Omit<RecallOptions, 'k' | 'reinforce'>;
interface Scored {
  category: number;
  r5: number;
  r10: number;
}
interface Pooled {
  'R@5': number;
  'R@10': number;
  byCategory: Record<string, number>;
}

const round = (x: number) => Math.round(x * 10) / 10;

function pool(scores: readonly Scored[]): Pooled {
  const mean = (xs: readonly Scored[], f: (s: Scored) => number) =>
    xs.length === 0 ? 0 : (100 * xs.reduce((s, x) => s + f(x), 0)) / xs.length;
  const byCategory: Record<string, number> = {};
  for (const [c, name] of Object.entries(CATEGORY_NAMES)) {
    const subset = scores.filter((s) => s.category === Number(c));
    if (subset.length > 0) byCategory[name] = mean(subset, (s) => s.r10);
  }
  return { 'R@5': mean(scores, (s) => s.r5), 'R@10': mean(scores, (s) => s.r10), byCategory };
}

const rounded = (p: Pooled): Pooled => ({
  'R@5': round(p['R@5']),
  'R@10': round(p['R@10']),
  byCategory: Object.fromEntries(Object.entries(p.byCategory).map(([k, v]) => [k, round(v)])),
});

export async function runLoco(
  conversations: readonly LocomoConversation[],
  options: { grid: Options[]; modes: IngestMode[]; backend: string; window?: number; json: boolean; source: string },
): Promise<void> {
  if (conversations.length < 2)
    throw new Error('--loco needs at least two conversations (one held out, the rest to choose on).');
  if (options.grid.length === 0) throw new Error('--loco needs a non-empty JSON array of recall options.');
  const factory = (await backendFactories())[options.backend];
  if (!factory) throw new Error(`Unknown or unavailable backend "${options.backend}".`);
  const embedder = new HashingEmbedder();
  const out: unknown[] = [];
  for (const mode of options.modes) {
    // scores[set][conversation] = per-question R@5 / R@10
    const scores = options.grid.map(() => conversations.map((): Scored[] => []));
    for (const [ci, conversation] of conversations.entries()) {
      const store: MemoryStore = await factory({ embedder });
      const { labels } = await ingestCase(store, locomoSuite([conversation], options.source).cases[0]!, {
        mode,
        ...(options.window !== undefined ? { window: options.window } : {}),
      });
      for (const [gi, recallOptions] of options.grid.entries()) {
        for (const q of conversation.questions) {
          const got = (await store.recall(q.question, { ...recallOptions, k: 10, reinforce: false })).flatMap(
            (r) => labels.get(r.memory.id) ?? [],
          );
          const top5 = new Set(got.slice(0, 5));
          const top10 = new Set(got);
          scores[gi]![ci]!.push({
            category: q.category,
            r5: q.evidence.filter((e) => top5.has(e)).length / q.evidence.length,
            r10: q.evidence.filter((e) => top10.has(e)).length / q.evidence.length,
          });
        }
      }
      await store.close();
    }
    const rows = options.grid.map((o, gi) => ({
      options: o,
      ...rounded(pool(scores[gi]!.flat())),
      perConversation: Object.fromEntries(conversations.map((c, ci) => [c.id, round(pool(scores[gi]![ci]!)['R@10'])])),
    }));
    const held: Scored[] = [];
    const chosen: Record<string, Options> = {};
    for (const [ci, conversation] of conversations.entries()) {
      const others = (gi: number) => pool(scores[gi]!.filter((_, i) => i !== ci).flat());
      const baseline = others(0);
      let best = 0;
      let bestKey = Number.NEGATIVE_INFINITY;
      for (let gi = 0; gi < options.grid.length; gi++) {
        const p = others(gi);
        const lowers = Object.entries(p.byCategory).some(([k, v]) => v < baseline.byCategory[k]! - 1e-9);
        const key = p['R@10'] + p['R@5'] * 1e-4;
        if (!lowers && key > bestKey + 1e-9) {
          best = gi;
          bestKey = key;
        }
      }
      chosen[conversation.id] = options.grid[best]!;
      held.push(...scores[best]![ci]!);
    }
    const loco = { ...rounded(pool(held)), chosen };
    if (options.json) {
      out.push({ mode, rows, loco });
      continue;
    }
    const categories = Object.keys(rows[0]!.byCategory);
    console.log(
      `\nLoCoMo ${options.source}, ${options.backend}, ${mode} mode: each set of recall options pooled, then LOCO\n`,
    );
    console.log(`| options | R@5 | R@10 | ${categories.join(' | ')} | ${conversations.map((c) => c.id).join(' | ')} |`);
    console.log(`| --- | --- | --- | ${[...categories, ...conversations].map(() => '---').join(' | ')} |`);
    for (const r of rows)
      console.log(
        `| ${JSON.stringify(r.options)} | ${r['R@5']} | ${r['R@10']} | ${categories.map((c) => r.byCategory[c]).join(' | ')} | ${conversations.map((c) => r.perConversation[c.id]).join(' | ')} |`,
      );
    console.log(
      `| **LOCO** | ${loco['R@5']} | ${loco['R@10']} | ${categories.map((c) => loco.byCategory[c]).join(' | ')} | |`,
    );
    console.log(
      `\nChosen on the other conversations: ${conversations.map((c) => `${c.id} ${JSON.stringify(chosen[c.id])}`).join('; ')}`,
    );
  }
  if (options.json) console.log(JSON.stringify(out, null, 2));
}
