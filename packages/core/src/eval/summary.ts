import type { CaseResult, MessageResult, QuestionResult } from './run-eval';

/** Mean recall of a set of questions. Figures are percentages (0-100). */
export interface RecallSummary {
  questions: number;
  /** Mean R@k per k. */
  recall: Record<number, number>;
  /** The same per question category (LoCoMo's multi-hop, temporal, …). */
  byCategory: Record<string, { questions: number; recall: Record<number, number> }>;
  /** Wall time of one recall (at the largest k). */
  latency: Latency;
}

/** Skill activation of a set of messages. Figures are percentages (0-100). */
export interface SkillsSummary {
  /** Messages that expect some skill. */
  messages: number;
  /** Share of them whose first activated skill is expected. */
  top1: number;
  /** Share of them where an expected skill is among those activated (hit@k, k the activation's). */
  hit: number;
  /** Messages that expect none (`expect: []`). */
  unrelated: number;
  /** Share of those that activated a skill all the same. */
  falseActivation: number;
  /** Skills activated per message, over every message. */
  meanActivated: number;
  byCategory: Record<string, { messages: number; top1: number; hit: number }>;
  latency: Latency & { cpuP50?: number; cpuMean?: number };
}

export interface Latency {
  p50: number;
  p95: number;
  mean: number;
}

export interface EvalSummary {
  recall?: RecallSummary;
  skills?: SkillsSummary;
}

export function summarizeCase(
  questions: readonly QuestionResult[],
  messages: readonly MessageResult[],
  ks: readonly number[],
): EvalSummary {
  return {
    ...(questions.length > 0 ? { recall: recallSummary(questions, ks) } : {}),
    ...(messages.length > 0 ? { skills: skillsSummary(messages) } : {}),
  };
}

/** Every case of a configuration together: means over all its questions and messages (not over cases). */
export function summarizeConfiguration(cases: readonly CaseResult[], ks: readonly number[]): EvalSummary {
  return summarizeCase(
    cases.flatMap((c) => c.questions),
    cases.flatMap((c) => c.messages),
    ks,
  );
}

function meanRecall(questions: readonly QuestionResult[], ks: readonly number[]): Record<number, number> {
  const out: Record<number, number> = {};
  for (const k of ks) out[k] = (100 * questions.reduce((s, q) => s + (q.recall[k] ?? 0), 0)) / questions.length;
  return out;
}

function recallSummary(questions: readonly QuestionResult[], ks: readonly number[]): RecallSummary {
  const byCategory: RecallSummary['byCategory'] = {};
  for (const [category, subset] of groupBy(questions)) {
    byCategory[category] = { questions: subset.length, recall: meanRecall(subset, ks) };
  }
  return {
    questions: questions.length,
    recall: meanRecall(questions, ks),
    byCategory,
    latency: latency(questions.map((q) => q.ms)),
  };
}

function skillsSummary(messages: readonly MessageResult[]): SkillsSummary {
  const rates = (subset: readonly MessageResult[]) => {
    const expecting = subset.filter((m) => m.expect.length > 0);
    const share = (n: number) => (expecting.length > 0 ? (100 * n) / expecting.length : 0);
    return {
      messages: expecting.length,
      top1: share(expecting.filter((m) => m.top1).length),
      hit: share(expecting.filter((m) => m.hit).length),
    };
  };
  const unrelated = messages.filter((m) => m.expect.length === 0);
  const byCategory: SkillsSummary['byCategory'] = {};
  for (const [category, subset] of groupBy(messages)) byCategory[category] = rates(subset);
  const cpu = messages.flatMap((m) => (m.cpuMs === undefined ? [] : [m.cpuMs]));
  const cpuLatency = cpu.length > 0 ? latency(cpu) : undefined;
  return {
    ...rates(messages),
    unrelated: unrelated.length,
    falseActivation:
      unrelated.length > 0 ? (100 * unrelated.filter((m) => m.got.length > 0).length) / unrelated.length : 0,
    meanActivated: messages.reduce((s, m) => s + m.got.length, 0) / messages.length,
    byCategory,
    latency: {
      ...latency(messages.map((m) => m.ms)),
      ...(cpuLatency ? { cpuP50: cpuLatency.p50, cpuMean: cpuLatency.mean } : {}),
    },
  };
}

function groupBy<T extends { category?: string }>(items: readonly T[]): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const item of items) {
    if (item.category === undefined) continue;
    out.set(item.category, [...(out.get(item.category) ?? []), item]);
  }
  return new Map([...out].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function latency(values: readonly number[]): Latency {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
  return { p50: at(50), p95: at(95), mean: sorted.reduce((s, x) => s + x, 0) / (sorted.length || 1) };
}
