import type { Memory, MemoryInput } from '../contracts';
import { invalidInput } from '../errors';
import type { MemoryStore, MemoryStoreOptions, RecallOptions } from '../store/memory-store';
import { type ActivateOptions, SkillRegistry, type SkillRegistryOptions } from '../skills/registry';
import type { EvalCase, EvalSuite } from './eval-suite';
import { type EvalSummary, summarizeCase, summarizeConfiguration } from './summary';

/** How a case's conversation is stored: `rememberConversation` per session, or every turn bare (`rememberMany`). */
export type EvalIngestMode = 'conversation' | 'turn';
export const EVAL_INGEST_MODES: readonly EvalIngestMode[] = ['conversation', 'turn'];
export type EvalSignal = NonNullable<RecallOptions['mode']>;
export const EVAL_SIGNALS: readonly EvalSignal[] = ['hybrid', 'keyword', 'dense'];

/** Store options a configuration may set: everything but the backend, the embedder and the clock. */
export type EvalStoreOptions = Omit<Partial<MemoryStoreOptions>, 'backend' | 'embedder' | 'now'>;

/** One way of storing and asking: what `agentmem eval` compares, side by side. */
export interface EvalConfiguration {
  /** Shown in tables; default: the options that differ from the defaults (`mode=turn signal=keyword`). */
  name?: string;
  /** How conversation turns are stored; default `conversation`. */
  mode?: EvalIngestMode;
  /** Neighbouring turns as context in conversation mode; default the API's (2). */
  window?: number;
  /** Recall's mode; default `hybrid`. */
  signal?: EvalSignal;
  /** Options of the store (fusionWeights, minDenseSimilarity, dateEvidence, …). */
  store?: EvalStoreOptions;
  /** Options of every recall besides k, mode and reinforce. */
  recall?: Omit<RecallOptions, 'k' | 'mode' | 'reinforce'>;
  /** Options of the skill registry (semanticRange, fusionWeights, parameters). */
  skillActivation?: SkillRegistryOptions;
  /** Options of every activation: k (default 3), minScore, gapRatio. */
  activate?: Pick<ActivateOptions, 'k' | 'minScore' | 'gapRatio'>;
}

/** A store opened for one case and configuration; `close` is called when the case is done. */
export interface OpenedEvalStore {
  store: MemoryStore;
  close(): Promise<void>;
}

/** Opens a fresh, empty store (the caller picks backend and embedder); `now` is the case's clock when it sets one. */
export type OpenEvalStore = (request: { store: EvalStoreOptions; now?: number }) => Promise<OpenedEvalStore>;

export interface RunEvalOptions {
  open: OpenEvalStore;
  /** Default one configuration of defaults. */
  configurations?: readonly EvalConfiguration[];
  /** R@k is reported for each; default 5 and 10. */
  ks?: readonly number[];
  /** Ask every question and message once, untimed, before the timed pass (steady-state latency). */
  warmUp?: boolean;
  onProgress?: (done: number, total: number) => void;
}

export interface QuestionResult {
  line: number;
  question: string;
  category?: string;
  expect: string[];
  /** The ids of the memories recalled at the largest k, best first (`@<line>` for a memory without one). */
  got: string[];
  /** R@k per k: the share of `expect` among the top k. */
  recall: Record<number, number>;
  /** Wall time of the recall at the largest k. */
  ms: number;
}

export interface MessageResult {
  line: number;
  message: string;
  files: string[];
  category?: string;
  expect: string[];
  /** The skills activated (not counting `alwaysApply` ones), best first. */
  got: string[];
  /** The first activated skill is expected. */
  top1: boolean;
  /** An expected skill is among those activated (with `expect: []`: nothing was activated). */
  hit: boolean;
  ms: number;
  cpuMs?: number;
}

export interface CaseResult {
  name: string;
  line: number;
  /** Time to store the case's memories and conversation (embedding included). */
  ingestMs: number;
  /** Time to register its skills and build the activation index, apart from the messages' latency. */
  skillsMs?: number;
  questions: QuestionResult[];
  messages: MessageResult[];
  summary: EvalSummary;
}

export interface ConfigurationResult {
  name: string;
  configuration: EvalConfiguration;
  cases: CaseResult[];
  summary: EvalSummary;
}

export interface EvalReport {
  source: string;
  ks: number[];
  configurations: ConfigurationResult[];
  warnings: string[];
}

/**
 * Runs every case of a suite under every configuration: a fresh store per
 * case (and per way of storing it), the memories and conversation stored,
 * the skills registered, then every question recalled and every message
 * activated through the public API, scored against what the case expects.
 */
export async function runEval(suite: EvalSuite, options: RunEvalOptions): Promise<EvalReport> {
  const configurations = (options.configurations?.length ? options.configurations : [{}]).map(checkConfiguration);
  const ks = [...new Set(options.ks ?? [5, 10])].sort((a, b) => a - b);
  if (ks.length === 0 || ks.some((k) => !Number.isInteger(k) || k < 1))
    throw invalidInput(`ks must be positive whole numbers, got ${JSON.stringify(options.ks)}.`);
  const total = configurations.length * suite.cases.reduce((n, c) => n + c.questions.length + c.messages.length, 0);
  let done = 0;
  const results = configurations.map(() => [] as CaseResult[]);
  for (const evalCase of suite.cases) {
    // Configurations that store the case alike share one store.
    const groups = new Map<string, number[]>();
    for (const [i, configuration] of configurations.entries()) {
      const key = ingestKey(evalCase, configuration);
      groups.set(key, [...(groups.get(key) ?? []), i]);
    }
    for (const members of groups.values()) {
      const first = configurations[members[0]!]!;
      const opened = await options.open({
        store: first.store ?? {},
        ...(evalCase.now ? { now: Date.parse(evalCase.now) } : {}),
      });
      try {
        let started = performance.now();
        const { labels } = await ingestCase(opened.store, evalCase, first);
        const ingestMs = performance.now() - started;
        for (const i of members) {
          const configuration = configurations[i]!;
          const questions: QuestionResult[] = [];
          const messages: MessageResult[] = [];
          let skillsMs: number | undefined;
          if (evalCase.questions.length > 0) {
            // Each k is its own recall (what `recall({ k })` returns), as LoCoMo's protocol asks.
            const ask = async (question: string, k: number) =>
              (
                await opened.store.recall(question, {
                  ...configuration.recall,
                  k,
                  mode: configuration.signal ?? 'hybrid',
                  reinforce: false,
                })
              ).flatMap((r) => labels.get(r.memory.id) ?? []);
            if (options.warmUp) for (const q of evalCase.questions) await ask(q.question, ks.at(-1)!);
            for (const q of evalCase.questions) {
              const recall: Record<number, number> = {};
              let got: string[] = [];
              let ms = 0;
              for (const k of ks) {
                const started = performance.now();
                got = await ask(q.question, k);
                ms = performance.now() - started;
                const top = new Set(got);
                recall[k] = q.expect.filter((id) => top.has(id)).length / q.expect.length;
              }
              questions.push({
                line: q.line,
                question: q.question,
                ...(q.category !== undefined ? { category: q.category } : {}),
                expect: q.expect,
                got,
                recall,
                ms,
              });
              options.onProgress?.(++done, total);
            }
          }
          if (evalCase.messages.length > 0) {
            const registry = new SkillRegistry(opened.store, configuration.skillActivation);
            started = performance.now();
            await registry.registerMany(evalCase.skills);
            await registry.activate(''); // builds the index: timed apart from the messages
            skillsMs = performance.now() - started;
            const activate = async (m: EvalCase['messages'][number]) =>
              (await registry.activate(m.message, { ...configuration.activate, files: m.files }))
                .filter((a) => a.activatedBy !== 'always')
                .map((a) => a.skill.name);
            if (options.warmUp) for (const m of evalCase.messages) await activate(m);
            for (const m of evalCase.messages) {
              const cpu = cpuNow();
              const started = performance.now();
              const got = await activate(m);
              const ms = performance.now() - started;
              const cpuMs = cpu === undefined ? undefined : cpuNow()! - cpu;
              const top1 = got.length > 0 && m.expect.includes(got[0]!);
              const hit = m.expect.length === 0 ? got.length === 0 : got.some((name) => m.expect.includes(name));
              messages.push({
                line: m.line,
                message: m.message,
                files: m.files,
                ...(m.category !== undefined ? { category: m.category } : {}),
                expect: m.expect,
                got,
                top1,
                hit,
                ms,
                ...(cpuMs !== undefined ? { cpuMs } : {}),
              });
              options.onProgress?.(++done, total);
            }
            registry.invalidate(); // the index of these parameters is not needed after the case
          }
          results[i]!.push({
            name: evalCase.name,
            line: evalCase.line,
            ingestMs,
            ...(skillsMs !== undefined ? { skillsMs } : {}),
            questions,
            messages,
            summary: summarizeCase(questions, messages, ks),
          });
        }
      } finally {
        await opened.close();
      }
    }
  }
  return {
    source: suite.source,
    ks,
    configurations: configurations.map((configuration, i) => ({
      name: configurationName(configuration),
      configuration,
      cases: results[i]!,
      summary: summarizeConfiguration(results[i]!, ks),
    })),
    warnings: suite.warnings,
  };
}

/** The name a configuration is shown by: its own, or the options that differ from the defaults. */
export function configurationName(c: EvalConfiguration): string {
  if (c.name) return c.name;
  const parts: string[] = [];
  if (c.mode && c.mode !== 'conversation') parts.push(`mode=${c.mode}`);
  if (c.window !== undefined) parts.push(`window=${c.window}`);
  if (c.signal && c.signal !== 'hybrid') parts.push(`signal=${c.signal}`);
  for (const [key, value] of Object.entries({ ...c.store, ...c.recall, ...c.activate }))
    parts.push(`${key}=${typeof value === 'object' ? JSON.stringify(value) : String(value)}`);
  if (c.skillActivation) parts.push(`skillActivation=${JSON.stringify(c.skillActivation)}`);
  return parts.join(' ') || 'defaults';
}

function checkConfiguration(c: EvalConfiguration): EvalConfiguration {
  if (c.mode !== undefined && !EVAL_INGEST_MODES.includes(c.mode))
    throw invalidInput(`Unknown mode "${c.mode}": use ${EVAL_INGEST_MODES.join(' or ')}.`);
  if (c.signal !== undefined && !EVAL_SIGNALS.includes(c.signal))
    throw invalidInput(`Unknown signal "${c.signal}": use ${EVAL_SIGNALS.join(', ')}.`);
  if (c.window !== undefined && !(Number.isInteger(c.window) && c.window >= 0))
    throw invalidInput(`window must be a whole number of turns (0 or more), got ${c.window}.`);
  return c;
}

/** What decides how a case is stored; configurations with the same key share a store. */
function ingestKey(c: EvalCase, configuration: EvalConfiguration): string {
  const conversation = c.sessions.length > 0;
  const mode = configuration.mode ?? 'conversation';
  return JSON.stringify([
    conversation ? mode : '',
    conversation && mode === 'conversation' ? (configuration.window ?? null) : null,
    c.questions.length > 0 ? (configuration.store ?? {}) : {},
  ]);
}

/**
 * Stores a case's memories, then its conversation (per session, or as bare turns); returns the stored
 * memories in that order and each one's labels (the ids of the lines it stores, or `@<line>`): a memory
 * that several identical lines collapsed into stands for all of them.
 */
export async function ingestCase(
  store: MemoryStore,
  c: EvalCase,
  configuration: Pick<EvalConfiguration, 'mode' | 'window'> = {},
): Promise<{ memories: Memory[]; labels: Map<string, string[]> }> {
  const labels = new Map<string, string[]>();
  const memories: Memory[] = [];
  const note = (memory: Memory, label: string) => {
    memories.push(memory);
    labels.set(memory.id, [...(labels.get(memory.id) ?? []), label]);
  };
  const labelOf = (item: { id?: string; line: number }) => item.id ?? `@${item.line}`;
  if (c.memories.length > 0) {
    const stored = await store.rememberMany(
      c.memories.map(
        (m): MemoryInput => ({
          content: m.content,
          type: m.type,
          ...(m.importance !== undefined ? { importance: m.importance } : {}),
          ...(m.tags ? { tags: m.tags } : {}),
          ...(m.occurredAt ? { occurredAt: m.occurredAt } : {}),
          ...(m.context ? { context: m.context } : {}),
        }),
      ),
    );
    for (const [i, memory] of stored.entries()) note(memory, labelOf(c.memories[i]!));
  }
  if (c.sessions.length === 0) return { memories, labels };
  if ((configuration.mode ?? 'conversation') === 'turn') {
    // Bare turns, as a user storing a chat line by line would: no session, no time, no context.
    const turns = c.sessions.flatMap((s) => s.turns);
    const stored = await store.rememberMany(
      turns.map((t) => ({ content: `${t.speaker}: ${t.text}`, type: 'user' as const, ...turnMetadata(t) })),
    );
    for (const [i, memory] of stored.entries()) note(memory, labelOf(turns[i]!));
    return { memories, labels };
  }
  for (const session of c.sessions) {
    const stored = await store.rememberConversation(
      session.turns.map((t) => ({
        speaker: t.speaker,
        text: t.text,
        ...(t.at ? { at: t.at } : {}),
        ...turnMetadata(t),
      })),
      {
        sessionId: `${c.name}/${session.id}`,
        ...(session.at ? { at: session.at } : {}),
        ...(session.title ? { title: session.title } : {}),
        ...(configuration.window !== undefined ? { window: configuration.window } : {}),
      },
    );
    for (const [i, memory] of stored.entries()) note(memory, labelOf(session.turns[i]!));
  }
  return { memories, labels };
}

/** A turn's id travels in its metadata (as LoCoMo's `diaId`), so that a stored turn says which it was. */
function turnMetadata(t: { id?: string }): { metadata?: { diaId: string } } {
  return t.id !== undefined ? { metadata: { diaId: t.id } } : {};
}

/** CPU time of this process in ms, where the runtime tells it (Node). */
function cpuNow(): number | undefined {
  if (typeof process === 'undefined' || typeof process.cpuUsage !== 'function') return undefined;
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}
