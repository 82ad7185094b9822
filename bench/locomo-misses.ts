/**
 * Where the evidence the top 10 misses is, and what could reach it: `npm run bench -- locomo --misses
 * [DEPTH]` (issue 31, docs/benchmarks.md "Decomposition, session pools, event and name priors, and the
 * ceiling (issue 31, hop-8)"). Each conversation is stored (the first of
 * `--modes`, default conversation, on the first of `--backends`, default in-memory) and every question
 * asked twice with the default recall: k = 10, the user's top 10 (the bench's R@10), and k = DEPTH
 * (default 300) for the ranks of what the top 10 missed. Per category it prints:
 *
 * - the missed evidence turns: at ranks 11-50 (inside the 50 candidates a k = 10 recall rescores),
 *   51-DEPTH, or below DEPTH (or matching no query word);
 * - how many sit in a session with no turn in the top 10, and how many are their session's best-ranked
 *   turn (what a pool built from the best turn of each session could reach);
 * - lexical links: the turn's own words (without `Speaker:`) share a stem with the question (speaker
 *   names aside), share a specific stem (in at most 3 turns of the conversation) with the top 10's own
 *   words (what feedback from the top 10 could use), or share an entity other than a speaker or a
 *   date (`extractEntities`) with the question or the top 10; "none" shares none of the three;
 * - the oracle R@10 at each depth: the share of evidence a perfect reader of the top DEPTH candidates
 *   could put in the top 10 (10 = today's R@10).
 *
 * In turn mode (bare turns, no sessions) the session columns print n/a. The deep list is a second
 * recall with a larger pool (5 x DEPTH), so its order below 10 can differ slightly from the k = 10
 * pool's; a missed turn the deep list ranks in its top 10 counts as rank 11.
 */

import {
  entityKey,
  HashingEmbedder,
  extractEntities,
  ingestCase,
  locomoSuite,
  type MemoryStore,
  STOPWORDS,
  stem,
  words,
} from '@agentmem/core';
import { backendFactories, CATEGORY_NAMES, type IngestMode, type LocomoConversation } from './locomo';

const ORACLE_DEPTHS = [10, 20, 40, 50, 100] as const;
/** A stem in at most this many turns of the conversation is specific enough to point at one place. */
const SPECIFIC_TURNS = 3;

interface Counts {
  questions: number;
  evidence: number;
  missed: number;
  rank11to50: number;
  rank51toDepth: number;
  belowDepth: number;
  sessionWithoutTop10: number;
  sessionBest: number;
  questionStem: number;
  top10SpecificStem: number;
  entity: number;
  none: number;
  /** Sum over questions of the share of evidence a reader of the top `depth` could place in the top 10. */
  oracle: Record<number, number>;
}

const emptyCounts = (depths: readonly number[]): Counts => ({
  questions: 0,
  evidence: 0,
  missed: 0,
  rank11to50: 0,
  rank51toDepth: 0,
  belowDepth: 0,
  sessionWithoutTop10: 0,
  sessionBest: 0,
  questionStem: 0,
  top10SpecificStem: 0,
  entity: 0,
  none: 0,
  oracle: Object.fromEntries(depths.map((d) => [d, 0])),
});

interface Turn {
  content: string;
  session: string;
}

export interface MissesOptions {
  depth: number;
  mode: IngestMode;
  backend: string;
  json: boolean;
}

export async function runMisses(conversations: readonly LocomoConversation[], options: MissesOptions): Promise<void> {
  const { depth } = options;
  const depths = [...ORACLE_DEPTHS.filter((d) => d < depth), depth];
  const factory = (await backendFactories())[options.backend];
  if (!factory) throw new Error(`Unknown backend "${options.backend}" for --misses.`);
  const byCategory = new Map<number, Counts>();
  // Bare turns (turn mode) have no session: each is its own, so the session columns say nothing.
  const sessions = options.mode === 'conversation';
  for (const conversation of conversations) {
    const store: MemoryStore = await factory({ embedder: new HashingEmbedder() });
    try {
      const { memories, labels } = await ingestCase(store, locomoSuite([conversation]).cases[0]!, {
        mode: options.mode,
      });
      const turns = new Map<string, Turn>();
      for (const m of memories)
        for (const label of labels.get(m.id) ?? [])
          turns.set(label, { content: m.content, session: String(m.metadata?.sessionId ?? m.id) });
      const speakers = new Set(conversation.turns.map((t) => t.speaker.toLowerCase()));
      const speakerKeys = new Set(conversation.turns.map((t) => entityKey(t.speaker)));
      const own = (content: string) => content.replace(/^[^:\n]{1,80}:\s*/, '');
      const stems = (text: string) =>
        new Set(
          words(text.toLowerCase())
            .filter((w) => w.length > 1 && !STOPWORDS.has(w) && !speakers.has(w))
            .map((w) => stem(w)),
        );
      const entities = (text: string) =>
        new Set(
          extractEntities(text)
            .map((e) => e.key)
            .filter((k) => !k.startsWith('date:') && !speakerKeys.has(k)),
        );
      const turnsWith = new Map<string, number>();
      for (const t of turns.values())
        for (const s of stems(own(t.content))) turnsWith.set(s, (turnsWith.get(s) ?? 0) + 1);
      const ask = async (question: string, k: number) =>
        (await store.recall(question, { k, reinforce: false })).flatMap((r) => labels.get(r.memory.id) ?? []);

      for (const q of conversation.questions) {
        const counts = byCategory.get(q.category) ?? emptyCounts(depths);
        byCategory.set(q.category, counts);
        counts.questions++;
        counts.evidence += q.evidence.length;
        const top10 = await ask(q.question, 10);
        const deep = await ask(q.question, depth);
        const inTop = new Set(top10);
        const rank = new Map<string, number>();
        deep.forEach((label, i) => {
          if (!rank.has(label)) rank.set(label, inTop.has(label) ? i + 1 : Math.max(11, i + 1));
        });
        for (const label of top10) rank.set(label, Math.min(rank.get(label) ?? 10, 10));
        for (const d of depths)
          counts.oracle[d]! +=
            Math.min(10, q.evidence.filter((e) => (rank.get(e) ?? Number.POSITIVE_INFINITY) <= d).length) /
            q.evidence.length;

        const questionStems = stems(q.question);
        const questionEntities = entities(q.question);
        const topSessions = new Set<string>();
        const topSpecific = new Set<string>();
        const topEntities = new Set<string>();
        for (const label of top10) {
          const t = turns.get(label);
          if (!t) continue;
          topSessions.add(t.session);
          for (const s of stems(own(t.content))) if ((turnsWith.get(s) ?? 0) <= SPECIFIC_TURNS) topSpecific.add(s);
          for (const e of entities(t.content)) topEntities.add(e);
        }
        const sessionBest = new Map<string, string>();
        for (const label of [...top10, ...deep]) {
          const t = turns.get(label);
          if (t && !sessionBest.has(t.session)) sessionBest.set(t.session, label);
        }
        for (const e of q.evidence) {
          const t = turns.get(e);
          if (!t || inTop.has(e)) continue;
          counts.missed++;
          const r = rank.get(e);
          if (r !== undefined && r <= 50) counts.rank11to50++;
          else if (r !== undefined) counts.rank51toDepth++;
          else counts.belowDepth++;
          if (!topSessions.has(t.session)) counts.sessionWithoutTop10++;
          if (sessionBest.get(t.session) === e) counts.sessionBest++;
          const turnStems = [...stems(own(t.content))];
          const a = turnStems.some((s) => questionStems.has(s));
          const b = turnStems.some((s) => topSpecific.has(s));
          const c = [...entities(t.content)].some((x) => questionEntities.has(x) || topEntities.has(x));
          if (a) counts.questionStem++;
          if (b) counts.top10SpecificStem++;
          if (c) counts.entity++;
          if (!a && !b && !c) counts.none++;
        }
      }
    } finally {
      await store.close();
    }
  }
  const all = emptyCounts(depths);
  for (const c of byCategory.values()) {
    for (const key of Object.keys(c) as (keyof Counts)[]) {
      if (key === 'oracle') for (const d of depths) all.oracle[d]! += c.oracle[d]!;
      else all[key] += c[key];
    }
  }
  const rows = [
    ...[...byCategory.entries()]
      .sort(([a], [b]) => a - b)
      .map(([c, counts]) => [CATEGORY_NAMES[c] ?? String(c), counts] as const),
    ['all', all] as const,
  ];
  if (options.json) {
    console.log(
      JSON.stringify(
        rows.map(([category, c]) => ({
          category,
          ...c,
          oracle: Object.fromEntries(depths.map((d) => [d, Math.round((1000 * c.oracle[d]!) / c.questions) / 10])),
        })),
        null,
        2,
      ),
    );
    return;
  }
  const share = (n: number, of: number) => `${n} (${of === 0 ? 0 : Math.round((100 * n) / of)}%)`;
  console.log(
    `| category | questions | missed / evidence | rank 11-50 | 51-${depth} | below | session without a top-10 turn | its session's best | question stem | specific top-10 stem | entity | none | oracle R@10 at ${depths.join(' / ')} |`,
  );
  console.log(`| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |`);
  for (const [name, c] of rows) {
    const m = c.missed;
    console.log(
      `| ${name} | ${c.questions} | ${m} / ${c.evidence} | ${share(c.rank11to50, m)} | ${share(c.rank51toDepth, m)} | ${share(c.belowDepth, m)} | ${sessions ? share(c.sessionWithoutTop10, m) : 'n/a'} | ${sessions ? share(c.sessionBest, m) : 'n/a'} | ${share(c.questionStem, m)} | ${share(c.top10SpecificStem, m)} | ${share(c.entity, m)} | ${share(c.none, m)} | ${depths.map((d) => ((100 * c.oracle[d]!) / c.questions).toFixed(1)).join(' / ')} |`,
    );
  }
}
