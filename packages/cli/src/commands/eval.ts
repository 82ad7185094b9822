import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AgentMemoryError,
  type ConfigurationResult,
  EVAL_INGEST_MODES,
  EVAL_SIGNALS,
  type EvalConfiguration,
  type EvalIngestMode,
  type EvalReport,
  type EvalSignal,
  type EvalSuite,
  InMemoryBackend,
  isMemoryType,
  loadEvalFile,
  MemoryStore,
  runEval,
} from '@agentmem/core';
import { createSqliteMemory } from '@agentmem/sqlite';
import { type Command, InvalidArgumentError, Option } from 'commander';
import type { CliContext } from '../context';
import { embedderFor, missingCohereKey } from '../embedder';
import { type Column, counted, type Row } from '../output';
import { parseList, parseNumber, wholeNumber } from '../parse';

interface EvalCommandOptions {
  k: number[];
  mode?: EvalIngestMode[];
  window?: number[];
  signal?: EvalSignal[];
  denseWeight?: number[];
  skillK?: number[];
  minScore?: number[];
  gapRatio?: number[];
  minRecall?: number;
  minHit?: number;
  maxFalse?: number;
  show: 'failures' | 'all' | 'none';
  inMemory?: boolean;
}

/** A comma-separated list, each value read by `parse` (a bad one is a usage error naming it). */
function listOf<T>(parse: (value: string) => T): (value: string) => T[] {
  return (value) => {
    const items = parseList(value);
    if (items.length === 0) throw new InvalidArgumentError('Expected a comma-separated list.');
    return items.map(parse);
  };
}

function oneOf<T extends string>(allowed: readonly T[]): (value: string) => T {
  return (value) => {
    if (!(allowed as readonly string[]).includes(value))
      throw new InvalidArgumentError(`Expected ${allowed.join(', ')}; got ${JSON.stringify(value)}.`);
    return value as T;
  };
}

const positive = wholeNumber(1, 10_000, 'Expected whole numbers from 1 to 10000.');
const nonNegative = wholeNumber(0, 1000, 'Expected whole numbers from 0 to 1000.');

function percent(value: string): number {
  const n = parseNumber(value);
  if (n < 0 || n > 100) throw new InvalidArgumentError(`Expected a percentage from 0 to 100, got ${value}.`);
  return n;
}

function nonNegativeNumber(value: string): number {
  const n = parseNumber(value);
  if (n < 0) throw new InvalidArgumentError(`Expected a number of at least 0, got ${value}.`);
  return n;
}

function fraction(value: string): number {
  const n = parseNumber(value);
  if (n < 0 || n > 1) throw new InvalidArgumentError(`Expected a number from 0 to 1, got ${value}.`);
  return n;
}

/** Every combination of the values given (a flag not given is one default value). */
function configurations(options: EvalCommandOptions): EvalConfiguration[] {
  let out: EvalConfiguration[] = [{}];
  const vary = <T>(values: readonly T[] | undefined, set: (c: EvalConfiguration, v: T) => EvalConfiguration) => {
    if (values) out = out.flatMap((c) => values.map((v) => set(c, v)));
  };
  vary(options.mode, (c, mode) => ({ ...c, mode }));
  vary(options.window, (c, window) => ({ ...c, window }));
  vary(options.signal, (c, signal) => ({ ...c, signal }));
  vary(options.denseWeight, (c, dense) => ({ ...c, store: { fusionWeights: { dense, keyword: 1 } } }));
  vary(options.skillK, (c, k) => ({ ...c, activate: { ...c.activate, k } }));
  vary(options.minScore, (c, minScore) => ({ ...c, activate: { ...c.activate, minScore } }));
  vary(options.gapRatio, (c, gapRatio) => ({ ...c, activate: { ...c.activate, gapRatio } }));
  return out;
}

export function register(program: Command, ctx: CliContext): void {
  program
    .command('eval')
    .description(
      'recall and skill regression tests: run a case file (JSONL, or LoCoMo JSON) on fresh stores and print R@k / hit@k; never touches --db',
    )
    .argument('<file>', 'case file (docs/eval.md)')
    // The default's label is the list as it is typed (commander would print the array: `[5,10]`).
    .addOption(new Option('-k, --k <list>', 'R@k for each k').argParser(listOf(positive)).default([5, 10], '5,10'))
    .option(
      '--mode <list>',
      `how conversation turns are stored: ${EVAL_INGEST_MODES.join(', ')} (default conversation)`,
      listOf(oneOf(EVAL_INGEST_MODES)),
    )
    .option(
      '--window <list>',
      'neighbouring turns kept as context in conversation mode (default 2)',
      listOf(nonNegative),
    )
    .option('--signal <list>', `recall mode: ${EVAL_SIGNALS.join(', ')} (default hybrid)`, listOf(oneOf(EVAL_SIGNALS)))
    .option(
      '--dense-weight <list>',
      "fusion weight of dense recall against keyword 1 (default: the store's)",
      listOf(nonNegativeNumber),
    )
    .option('--skill-k <list>', 'skills activated at most (default 3)', listOf(nonNegative))
    .option('--min-score <list>', 'minimum activation score (default 0.3)', listOf(parseNumber))
    .option('--gap-ratio <list>', 'drop skills below this share of the top score (default 0.65)', listOf(fraction))
    .option('--min-recall <pct>', "exit 1 when a configuration's mean R@k is below this for any k", percent)
    .option('--min-hit <pct>', "exit 1 when a configuration's skill hit@k is below this", percent)
    .option(
      '--max-false <pct>',
      'exit 1 when more than this share of messages expecting no skill activate one',
      percent,
    )
    .option(
      '--show <what>',
      'per question lines: failures, all or none',
      oneOf(['failures', 'all', 'none'] as const),
      'failures',
    )
    .option('--in-memory', 'run on in-memory stores instead of temporary SQLite files')
    .action(async (file: string, options: EvalCommandOptions) => {
      const suite = await loadEvalFile(file).catch((error: unknown) => {
        throw memoriesGivenAsCases(file, error) ?? error;
      });
      const report = await evaluate(ctx, suite, options);
      const gates = checkGates(report, options);
      if (gates.some((g) => !g.passed)) ctx.exitCode = 1;
      ctx.emit(reportJson(report, gates), () => {
        for (const warning of report.warnings) ctx.note(`warning: ${warning}`);
        printReport(ctx, report, options, gates);
      });
    });
}

/**
 * A file of memories (an `agentmem export`, an import file) given to eval: core reports every line as
 * "says neither of case, session, …"; the user needs to hear that eval wants questions about memories.
 */
function memoriesGivenAsCases(file: string, error: unknown): AgentMemoryError | undefined {
  if (!AgentMemoryError.hasCode(error, 'INVALID_INPUT')) return undefined;
  let first: unknown;
  try {
    const line = readFileSync(file, 'utf8')
      .split('\n')
      .find((l) => l.trim() !== '');
    first = JSON.parse(line ?? '');
  } catch {
    return undefined;
  }
  const memoryLine =
    typeof first === 'object' &&
    first !== null &&
    typeof (first as { content?: unknown }).content === 'string' &&
    isMemoryType((first as { type?: unknown }).type) &&
    !('memory' in first);
  if (!memoryLine) return undefined;
  return new AgentMemoryError(
    'INVALID_INPUT',
    `${file} holds memories ("content" and "type" on each line, as \`agentmem export\` writes them), not eval cases; nothing was run. A case file says what to store and what must come back: {"memory": "Orders live in PostgreSQL 16", "id": "m1"}, then {"question": "where are orders stored?", "expect": ["m1"]} (docs/eval.md). To load the memories into a store, use \`agentmem import ${file}\`.`,
    { cause: error, details: (error as AgentMemoryError).details },
  );
}

async function evaluate(ctx: CliContext, suite: EvalSuite, options: EvalCommandOptions): Promise<EvalReport> {
  const noKey = missingCohereKey(ctx.options.embedder);
  if (noKey) throw noKey;
  const embedder = await embedderFor(ctx.options.embedder);
  const dir = options.inMemory ? undefined : mkdtempSync(join(tmpdir(), 'agentmem-eval-'));
  let opened = 0;
  try {
    return await runEval(suite, {
      configurations: configurations(options),
      ks: options.k,
      onProgress: (done, total) => ctx.progress('asked', done, total),
      open: async ({ store, now }) => {
        const common = {
          ...store,
          ...(embedder ? { embedder } : {}),
          ...(now !== undefined ? { now: () => now } : {}),
        };
        const memory = dir
          ? await createSqliteMemory({ path: join(dir, `store-${++opened}.db`), branch: 'main', ...common })
          : await MemoryStore.open({ backend: new InMemoryBackend(), ...common });
        return { store: memory, close: () => memory.close() };
      },
    });
  } finally {
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
}

interface Gate {
  configuration: string;
  metric: string;
  value: number;
  limit: number;
  passed: boolean;
}

/** The thresholds given, checked for every configuration (a part a case file does not have is not checked). */
function checkGates(
  report: EvalReport,
  options: Pick<EvalCommandOptions, 'minRecall' | 'minHit' | 'maxFalse'>,
): Gate[] {
  const gates: Gate[] = [];
  for (const c of report.configurations) {
    const { recall, skills } = c.summary;
    const gate = (metric: string, value: number, limit: number, passed: boolean) =>
      gates.push({ configuration: c.name, metric, value: round(value), limit, passed });
    if (options.minRecall !== undefined && recall)
      for (const k of report.ks)
        gate(`R@${k}`, recall.recall[k]!, options.minRecall, recall.recall[k]! >= options.minRecall);
    if (options.minHit !== undefined && skills && skills.messages > 0)
      gate(`hit@${skillK(c)}`, skills.hit, options.minHit, skills.hit >= options.minHit);
    if (options.maxFalse !== undefined && skills && skills.unrelated > 0)
      gate('false', skills.falseActivation, options.maxFalse, skills.falseActivation <= options.maxFalse);
  }
  return gates;
}

const skillK = (c: ConfigurationResult) => c.configuration.activate?.k ?? 3;
const round = (x: number) => Math.round(x * 10) / 10;
const pct = (x: number) => x.toFixed(1);

function printReport(ctx: CliContext, report: EvalReport, options: EvalCommandOptions, gates: readonly Gate[]): void {
  const first = report.configurations[0]!;
  const questions = first.cases.reduce((n, c) => n + c.questions.length, 0);
  const messages = first.cases.reduce((n, c) => n + c.messages.length, 0);
  ctx.print(
    `${report.source}: ${counted(first.cases.length, 'case', 'cases')}, ${counted(questions, 'question', 'questions')}, ${counted(messages, 'message', 'messages')}; ` +
      `${counted(report.configurations.length, 'configuration', 'configurations')} on ${options.inMemory ? 'in-memory stores' : 'SQLite'}.`,
  );
  if (questions > 0) {
    const rows: Row[] = [];
    for (const c of report.configurations) {
      const add = (name: string, summary: (typeof c.summary)['recall']) => {
        if (!summary) return;
        const row: Row = { configuration: c.name, case: name, questions: summary.questions };
        for (const k of report.ks) row[`r${k}`] = pct(summary.recall[k]!);
        rows.push(row);
      };
      const withPart = c.cases.filter((r) => r.summary.recall);
      for (const r of withPart) add(r.name, r.summary.recall);
      if (withPart.length > 1) add('all', c.summary.recall);
      // Every case's questions of one category together, as `[category]`.
      for (const [category, summary] of Object.entries(c.summary.recall?.byCategory ?? {}))
        add(`[${category}]`, { ...summary, byCategory: {}, latency: c.summary.recall!.latency });
    }
    ctx.print('\nRecall (R@k: the share of the expected memories among the k recalled)');
    ctx.table(rows, [
      { key: 'configuration', max: 40 },
      { key: 'case', max: 30 },
      { key: 'questions', align: 'right' },
      ...report.ks.map((k): Column => ({ key: `r${k}`, header: `R@${k}`, align: 'right' })),
    ]);
  }
  if (messages > 0) {
    const rows: Row[] = [];
    for (const c of report.configurations) {
      const add = (name: string, summary: (typeof c.summary)['skills']) => {
        if (!summary) return;
        rows.push({
          configuration: c.name,
          case: name,
          messages: summary.messages,
          top1: summary.messages > 0 ? pct(summary.top1) : '-',
          hit: summary.messages > 0 ? pct(summary.hit) : '-',
          false: summary.unrelated > 0 ? `${pct(summary.falseActivation)} of ${summary.unrelated}` : '-',
        });
      };
      const withPart = c.cases.filter((r) => r.summary.skills);
      for (const r of withPart) add(r.name, r.summary.skills);
      if (withPart.length > 1) add('all', c.summary.skills);
      for (const [category, rates] of Object.entries(c.summary.skills?.byCategory ?? {}))
        add(`[${category}]`, { ...c.summary.skills!, ...rates, unrelated: 0 });
    }
    const k = skillK(first);
    ctx.print(
      `\nSkills (top-1: an expected skill activated first; hit@${k}: one among those activated; false: messages expecting none that activated one)`,
    );
    ctx.table(rows, [
      { key: 'configuration', max: 40 },
      { key: 'case', max: 30 },
      { key: 'messages', align: 'right' },
      { key: 'top1', header: 'TOP-1', align: 'right' },
      { key: 'hit', header: `HIT@${k}`, align: 'right' },
      { key: 'false', header: 'FALSE %', align: 'right' },
    ]);
  }
  if (options.show !== 'none') printItems(ctx, report, options.show === 'all');
  for (const g of gates)
    ctx.print(
      `${g.passed ? 'pass' : 'FAIL'}: ${g.configuration} ${g.metric} ${pct(g.value)} (needs ${g.metric === 'false' ? '<=' : '>='} ${g.limit})`,
    );
  if (gates.some((g) => !g.passed)) ctx.note('eval: below the threshold (exit code 1).');
}

/** One line per question or message (only the misses unless `all`), with what came back. */
function printItems(ctx: CliContext, report: EvalReport, all: boolean): void {
  const maxK = report.ks.at(-1)!;
  for (const c of report.configurations) {
    const lines: string[] = [];
    for (const r of c.cases) {
      const at = (line: number) => (line > 0 ? `${report.source}:${line}` : r.name);
      for (const q of r.questions) {
        // A miss when some k leaves an expected memory out; `missing` are those not even in the widest k.
        const ok = report.ks.every((k) => q.recall[k] === 1);
        if (ok && !all) continue;
        const missing = q.expect.filter((id) => !q.got.includes(id));
        const recall = report.ks.map((k) => `R@${k} ${q.recall[k]!.toFixed(2)}`).join(' ');
        lines.push(
          `  ${ok ? 'ok  ' : 'miss'} ${at(q.line)} ${JSON.stringify(q.question)}: ${recall}` +
            `${missing.length > 0 ? `; missing ${missing.join(', ')}` : ''}; top ${maxK}: ${q.got.join(', ') || 'nothing'}`,
        );
      }
      for (const m of r.messages) {
        const ok = m.expect.length === 0 ? m.hit : m.top1;
        if (ok && !all) continue;
        const want = m.expect.length > 0 ? m.expect.join(' or ') : 'none';
        lines.push(
          `  ${ok ? 'ok  ' : m.hit ? 'hit ' : 'miss'} ${at(m.line)} ${JSON.stringify(m.message)}` +
            `${m.files.length > 0 ? ` [${m.files.join(', ')}]` : ''}: activated ${m.got.join(', ') || 'nothing'}; expected ${want}`,
        );
      }
    }
    if (lines.length === 0) continue;
    ctx.print(`\n${all ? 'Every question and message' : 'Misses'} (${c.name}):`);
    for (const line of lines) ctx.print(line);
  }
}

/** The report as `--json` prints it: figures in percent with one decimal, per-question R@k as fractions. */
function reportJson(report: EvalReport, gates: readonly Gate[]) {
  // Means in percent (one decimal); a question's own R@k as the fraction of its expected memories found.
  const recallOf = (r: Record<number, number>) => Object.fromEntries(report.ks.map((k) => [`R@${k}`, round(r[k]!)]));
  const fractionOf = (r: Record<number, number>) =>
    Object.fromEntries(report.ks.map((k) => [`R@${k}`, Math.round(r[k]! * 1000) / 1000]));
  const summaryJson = (s: ConfigurationResult['summary'], k: number) => ({
    ...(s.recall
      ? {
          recall: {
            questions: s.recall.questions,
            ...recallOf(s.recall.recall),
            byCategory: Object.fromEntries(
              Object.entries(s.recall.byCategory).map(([name, c]) => [
                name,
                { questions: c.questions, ...recallOf(c.recall) },
              ]),
            ),
          },
        }
      : {}),
    ...(s.skills
      ? {
          skills: {
            messages: s.skills.messages,
            'top-1': round(s.skills.top1),
            [`hit@${k}`]: round(s.skills.hit),
            unrelated: s.skills.unrelated,
            false: round(s.skills.falseActivation),
            meanActivated: Math.round(s.skills.meanActivated * 100) / 100,
            byCategory: Object.fromEntries(
              Object.entries(s.skills.byCategory).map(([name, c]) => [
                name,
                { messages: c.messages, 'top-1': round(c.top1), [`hit@${k}`]: round(c.hit) },
              ]),
            ),
          },
        }
      : {}),
  });
  return {
    file: report.source,
    ks: report.ks,
    passed: gates.every((g) => g.passed),
    gates,
    warnings: report.warnings,
    configurations: report.configurations.map((c) => ({
      name: c.name,
      options: c.configuration,
      ...summaryJson(c.summary, skillK(c)),
      cases: c.cases.map((r) => ({
        name: r.name,
        ...summaryJson(r.summary, skillK(c)),
        questions: r.questions.map((q) => ({
          line: q.line,
          question: q.question,
          ...(q.category !== undefined ? { category: q.category } : {}),
          expect: q.expect,
          got: q.got,
          ...fractionOf(q.recall),
        })),
        messages: r.messages.map((m) => ({
          line: m.line,
          message: m.message,
          files: m.files,
          ...(m.category !== undefined ? { category: m.category } : {}),
          expect: m.expect,
          got: m.got,
          'top-1': m.top1,
          hit: m.hit,
        })),
      })),
    })),
  };
}
