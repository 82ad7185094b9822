/**
 * LoCoMo evidence recall (ACL 2024, `task_eval/evaluation.py`'s "recall
 * accuracy"): one store per conversation, every turn a memory, the question
 * as query; R@k = fraction of a question's evidence dia_ids among the top-k
 * turns, averaged over questions. Two ways to store a conversation, both
 * through the public API: `turn` (one `rememberMany` of bare turns, no time)
 * and `conversation` (one `rememberConversation` per session: time, session
 * date and neighbouring turns as context). Usage:
 *
 *   npm run bench -- locomo [--data FILE] [--backends memory,sqlite,fts5,postgres,postgres-ts_rank_cd] [--modes conversation,turn]
 *                           [--conversations conv-26,conv-30] [--window 2] [--signals keyword,hybrid]
 *                           [--by-category] [--dense-weight 0.1] [--min-dense 0.2] [--json]
 *                           [--loco '[{"listFocus":0.03},{}]'] [--misses [DEPTH]]
 *
 * `--json` prints an array of rows `{ backend, mode, signal, "R@5", "R@10", "R@25", byCategory }`.
 * `--loco GRID` scores each set of recall options in GRID (a JSON array, the first the baseline)
 * leave-one-conversation-out instead (bench/locomo-loco.ts), on the first backend asked for.
 * `--misses [DEPTH]` counts where the evidence the top 10 misses ranks and what links it to the
 * question (bench/locomo-misses.ts), on the first backend and mode asked for.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { embedderOption } from './embedder-option';
import {
  type Embedder,
  type EvalConfiguration,
  InMemoryBackend,
  ingestCase,
  LOCOMO_CATEGORY_NAMES,
  type LocomoConversation,
  locomoSuite,
  type MemoryBackend,
  MemoryStore,
  type MemoryStoreOptions,
  parseLocomo,
  runEval,
  STOPWORDS,
  words,
} from '@agentmem/core';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** The dataset lives outside the repository (CC BY-NC 4.0: never bundle it). */
export const LOCOMO_DEV_PATH = resolve(REPO_ROOT, '../shared/datasets/locomo-dev.json');

export const KS = [5, 10, 25] as const;
export const MODES = ['keyword', 'dense', 'hybrid'] as const;
export type Mode = (typeof MODES)[number];

export const CATEGORY_NAMES: Record<number, string> = { ...LOCOMO_CATEGORY_NAMES };

// The LoCoMo reader lives in core's eval module (`agentmem eval` reads the same files); re-exported for old imports.
export {
  type LocomoConversation,
  type LocomoQuestion,
  type LocomoTurn,
  parseEvidence,
  parseLocomoDate,
} from '@agentmem/core';

export function loadLocomo(path = LOCOMO_DEV_PATH): LocomoConversation[] {
  return parseLocomo(JSON.parse(readFileSync(path, 'utf8')), basename(path));
}

/** Per-question hits: `found[retriever][i]` = fraction of evidence in the top ks[i] (default KS). */
export interface QuestionScore {
  category: number;
  found: Record<string, number[]>;
}

/** A function that returns the dia_ids of the top-k turns for a question. */
export type Retriever = (question: string, k: number) => Promise<string[]>;

export async function scoreQuestions(
  conversation: LocomoConversation,
  retrievers: Record<string, Retriever>,
  ks: readonly number[] = KS,
): Promise<QuestionScore[]> {
  const scores: QuestionScore[] = [];
  for (const q of conversation.questions) {
    const found: Record<string, number[]> = {};
    for (const [name, retrieve] of Object.entries(retrievers)) {
      found[name] = [];
      for (const k of ks) {
        const top = new Set(await retrieve(q.question, k));
        found[name].push(q.evidence.filter((id) => top.has(id)).length / q.evidence.length);
      }
    }
    scores.push({ category: q.category, found });
  }
  return scores;
}

/** How a conversation is stored: bare turns (`rememberMany`), or sessions (`rememberConversation`). */
export const INGEST_MODES = ['conversation', 'turn'] as const;
export type IngestMode = (typeof INGEST_MODES)[number];

/** Stores a conversation the way a user would, one memory per turn, in the turns' order (core's `ingestCase`). */
export async function ingest(
  store: MemoryStore,
  conversation: LocomoConversation,
  mode: IngestMode,
  options: { window?: number } = {},
) {
  return (await ingestCase(store, locomoSuite([conversation]).cases[0]!, { mode, window: options.window })).memories;
}

/** Loads a conversation into a store and returns recall-based retrievers per signal. */
export async function storeRetrievers(
  store: MemoryStore,
  conversation: LocomoConversation,
  mode: IngestMode = 'turn',
  options: { window?: number; signals?: readonly Mode[] } = {},
): Promise<Record<Mode, Retriever>> {
  // Identical turns collapse into one memory (dedup by content); it stands for all of them.
  const { labels } = await ingestCase(store, locomoSuite([conversation]).cases[0]!, { mode, window: options.window });
  const retriever =
    (mode: Mode): Retriever =>
    async (question, k) =>
      (await store.recall(question, { k, mode, reinforce: false })).flatMap((r) => labels.get(r.memory.id) ?? []);
  const signals = options.signals ?? MODES;
  return Object.fromEntries(signals.map((m) => [m, retriever(m)])) as Record<Mode, Retriever>;
}

export interface Summary {
  questions: number;
  /** recall[retriever] = [R@5, R@10, R@25] (the ks scored) in percent. */
  recall: Record<string, number[]>;
  byCategory: Record<number, { questions: number; recall: Record<string, number[]> }>;
}

export function summarize(scores: readonly QuestionScore[]): Summary {
  const mean = (subset: readonly QuestionScore[]) => {
    const out: Record<string, number[]> = {};
    for (const name of Object.keys(subset[0]?.found ?? {})) {
      out[name] = subset[0]!.found[name]!.map(
        (_, ki) => (100 * subset.reduce((s, q) => s + q.found[name]![ki]!, 0)) / subset.length,
      );
    }
    return out;
  };
  const byCategory: Summary['byCategory'] = {};
  for (const category of [...new Set(scores.map((s) => s.category))].sort()) {
    const subset = scores.filter((s) => s.category === category);
    byCategory[category] = { questions: subset.length, recall: mean(subset) };
  }
  return { questions: scores.length, recall: mean(scores), byCategory };
}

/** The naive reference: SQLite FTS5 bm25 with the porter tokenizer, OR of non-stopword query words. */
async function fts5Retriever(conversation: LocomoConversation): Promise<{ retriever: Retriever; close: () => void }> {
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(':memory:');
  db.exec("CREATE VIRTUAL TABLE turns USING fts5(content, tokenize='porter')");
  const insert = db.prepare('INSERT INTO turns(rowid, content) VALUES (?, ?)');
  db.transaction(() => {
    for (const [i, t] of conversation.turns.entries()) insert.run(i + 1, t.content);
  })();
  const query = db.prepare('SELECT rowid FROM turns WHERE turns MATCH ? ORDER BY bm25(turns) LIMIT ?');
  const retriever: Retriever = async (question, k) => {
    const terms = [...new Set(words(question).filter((w) => !STOPWORDS.has(w)))];
    if (terms.length === 0) return [];
    const rows = query.all(terms.map((t) => `"${t}"`).join(' OR '), k) as { rowid: number }[];
    return rows.map((r) => conversation.turns[r.rowid - 1]!.diaId);
  };
  return { retriever, close: () => db.close() };
}

type StoreFactory = (options: { embedder: Embedder } & Partial<MemoryStoreOptions>) => Promise<MemoryStore>;

/** Backends available in this checkout; SQLite joins when `@agentmem/sqlite` is there. */
export async function backendFactories(): Promise<Record<string, StoreFactory>> {
  const fixedClock = () => Date.parse('2026-01-01T00:00:00Z');
  const factories: Record<string, StoreFactory> = {
    memory: async (o) => MemoryStore.open({ backend: new InMemoryBackend(), now: fixedClock, ...o }),
  };
  if (existsSync(resolve(REPO_ROOT, 'packages/sqlite/src/index.ts'))) {
    try {
      const sqlite = (await import('@agentmem/sqlite')) as {
        SqliteBackend?: new (o: { path: string }) => MemoryBackend;
      };
      if (sqlite.SqliteBackend) {
        const Backend = sqlite.SqliteBackend;
        factories.sqlite = async (o) =>
          MemoryStore.open({ backend: new Backend({ path: ':memory:' }), now: fixedClock, ...o });
      }
    } catch (error) {
      console.warn(`@agentmem/sqlite is present but did not load (${(error as Error).message}); skipping it.`);
    }
  }
  return factories;
}

function flag(args: string[], name: string): string | undefined {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
}

const pct = (x: number | undefined) => (x === undefined ? '' : x.toFixed(1));

export interface Row {
  backend: string;
  mode: IngestMode | 'reference';
  signal: string;
  'R@5': number;
  'R@10': number;
  'R@25': number;
  /** R@10 per LoCoMo category. */
  byCategory: Record<string, number>;
}

export async function run(args: string[]): Promise<void> {
  const path = resolve(flag(args, 'data') ?? LOCOMO_DEV_PATH);
  if (!existsSync(path)) {
    console.log(`LoCoMo data not found at ${path} (the shared datasets folder is absent); nothing to measure.`);
    return;
  }
  const only = flag(args, 'conversations')?.split(',');
  const conversations = loadLocomo(path).filter((c) => !only || only.includes(c.id));
  const factories = await backendFactories();
  const wanted = flag(args, 'backends')?.split(',') ?? [...Object.keys(factories), 'fts5'];
  const modes = (flag(args, 'modes')?.split(',') ?? [...INGEST_MODES]) as IngestMode[];
  for (const m of modes)
    if (!INGEST_MODES.includes(m)) throw new Error(`Unknown mode "${m}"; have ${INGEST_MODES.join(', ')}.`);
  const storeOptions: Partial<MemoryStoreOptions> = {};
  const denseWeight = flag(args, 'dense-weight');
  if (denseWeight !== undefined) storeOptions.fusionWeights = { dense: Number(denseWeight), keyword: 1 };
  const minDense = flag(args, 'min-dense');
  if (minDense !== undefined) storeOptions.minDenseSimilarity = Number(minDense);
  const window = flag(args, 'window') === undefined ? undefined : Number(flag(args, 'window'));
  const json = args.includes('--json');
  const grid = flag(args, 'loco');
  if (grid !== undefined) {
    const { runLoco } = await import('./locomo-loco');
    await runLoco(conversations, {
      grid: JSON.parse(grid),
      modes,
      backend: wanted[0] === 'fts5' || !wanted[0] ? 'memory' : wanted[0],
      ...(window !== undefined ? { window } : {}),
      json,
      source: basename(path),
    });
    return;
  }
  if (args.includes('--misses')) {
    const value = flag(args, 'misses');
    const depth = value !== undefined && /^\d+$/.test(value) ? Number(value) : 300;
    if (depth < 50)
      throw new Error(`--misses DEPTH must be at least 50 (the candidates a k = 10 recall rescores), got ${depth}.`);
    // It measures today's defaults on one store: say so rather than quietly measure something else.
    const asked = flag(args, 'backends')?.split(',') ?? ['memory'];
    if (asked.length !== 1 || !(asked[0]! in factories))
      throw new Error(
        `--misses runs on one of ${Object.keys(factories).join(', ')} (--backends memory, the default), got ${asked.join(',')}.`,
      );
    if (flag(args, 'embedder') !== undefined)
      throw new Error('--misses measures the default HashingEmbedder: drop --embedder.');
    const { runMisses } = await import('./locomo-misses');
    await runMisses(conversations, { depth, mode: modes[0] ?? 'conversation', backend: asked[0]!, json });
    return;
  }
  const signals = flag(args, 'signals')?.split(',') as Mode[] | undefined;

  // Postgres (PGlite on loopback) only when asked for: starting it costs seconds.
  let stopPostgres: (() => Promise<void>) | undefined;
  if (wanted.some((b) => b.startsWith('postgres'))) {
    const { pgliteFactories } = await import('./pglite-stores');
    const pg = await pgliteFactories(() => Date.parse('2026-01-01T00:00:00Z'));
    Object.assign(factories, pg.factories);
    stopPostgres = pg.stop;
  }
  const embedder = await embedderOption(flag(args, 'embedder'));
  if (!embedder) return;
  const rows: Row[] = [];
  const addRows = (backend: string, mode: Row['mode'], summary: Summary) => {
    for (const [signal, r] of Object.entries(summary.recall)) {
      const byCategory: Record<string, number> = {};
      for (const [c, v] of Object.entries(summary.byCategory))
        byCategory[CATEGORY_NAMES[Number(c)] ?? c] = round(v.recall[signal]![1]!);
      rows.push({ backend, mode, signal, 'R@5': round(r[0]!), 'R@10': round(r[1]!), 'R@25': round(r[2]!), byCategory });
    }
  };
  let questions = 0;
  const suite = locomoSuite(conversations, basename(path));
  for (const backend of wanted) {
    for (const mode of backend === 'fts5' ? (['reference'] as const) : modes) {
      const started = performance.now();
      if (backend === 'fts5') {
        const scores: QuestionScore[] = [];
        for (const conversation of conversations) {
          const { retriever, close } = await fts5Retriever(conversation);
          scores.push(...(await scoreQuestions(conversation, { keyword: retriever })));
          close();
        }
        const summary = summarize(scores);
        questions = summary.questions;
        addRows(backend, mode, summary);
      } else {
        const factory = factories[backend];
        if (!factory)
          throw new Error(
            `Unknown or unavailable backend "${backend}"; have ${Object.keys(factories).join(', ')}, fts5.`,
          );
        // The same engine as `agentmem eval`: one store per conversation, every signal asked of it.
        const configurations: EvalConfiguration[] = (signals ?? MODES).map((signal) => ({
          mode: mode as IngestMode,
          signal,
          ...(window !== undefined ? { window } : {}),
          store: storeOptions,
        }));
        const report = await runEval(suite, {
          configurations,
          ks: KS,
          open: async ({ store: options, now }) => {
            const store = await factory({ embedder, ...options, ...(now !== undefined ? { now: () => now } : {}) });
            return { store, close: () => store.close() };
          },
        });
        const order = Object.values(CATEGORY_NAMES);
        for (const c of report.configurations) {
          const recall = c.summary.recall!;
          questions = recall.questions;
          const byCategory = Object.entries(recall.byCategory)
            .sort(([a], [b]) => order.indexOf(a) - order.indexOf(b))
            .map(([name, category]) => [name, round(category.recall[10]!)]);
          rows.push({
            backend,
            mode,
            signal: c.configuration.signal!,
            'R@5': round(recall.recall[5]!),
            'R@10': round(recall.recall[10]!),
            'R@25': round(recall.recall[25]!),
            byCategory: Object.fromEntries(byCategory),
          });
        }
      }
      if (!json) console.error(`${backend} ${mode}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
    }
  }
  await stopPostgres?.();

  if (json) {
    console.log(JSON.stringify(rows, null, 2));
    return;
  }
  const skipped = conversations.reduce((s, c) => s + c.skipped, 0);
  const missing = conversations.flatMap((c) => c.missingEvidence.map((id) => `${c.id}/${id}`));
  console.log(
    `\nLoCoMo ${basename(path)} (${conversations.map((c) => c.id).join(', ')}): ${questions} questions with evidence ` +
      `(${skipped} skipped: none left), ${conversations.reduce((s, c) => s + c.turns.length, 0)} turns; ` +
      `dropped evidence ids with no such turn: ${missing.join(', ') || 'none'}. Embedder ${embedder.id}.\n`,
  );
  console.log('| backend | mode | signal | R@5 | R@10 | R@25 |');
  console.log('| --- | --- | --- | --- | --- | --- |');
  for (const r of rows) {
    const name = r.backend === 'fts5' ? 'raw FTS5 (reference)' : r.backend;
    console.log(`| ${name} | ${r.mode} | ${r.signal} | ${pct(r['R@5'])} | ${pct(r['R@10'])} | ${pct(r['R@25'])} |`);
  }
  if (args.includes('--by-category')) {
    console.log('\nR@10 by category:\n');
    const categories = Object.keys(rows[0]?.byCategory ?? {});
    console.log(`| backend | mode | signal | ${categories.join(' | ')} |`);
    console.log(`| --- | --- | --- | ${categories.map(() => '---').join(' | ')} |`);
    for (const r of rows) {
      console.log(
        `| ${r.backend} | ${r.mode} | ${r.signal} | ${categories.map((c) => pct(r.byCategory[c])).join(' | ')} |`,
      );
    }
  }
}

const round = (x: number) => Math.round(x * 10) / 10;
