import { describe, expect, it } from 'vitest';
import { InMemoryBackend } from '../backends';
import { MemoryStore } from '../store/memory-store';
import { parseCaseFile } from './case-file';
import type { EvalSuite } from './eval-suite';
import { type OpenEvalStore, runEval } from './run-eval';

const lines = (...objects: object[]) => objects.map((o) => JSON.stringify(o)).join('\n');

function suiteOf(...objects: object[]): EvalSuite {
  const { suite, errors } = parseCaseFile(lines(...objects), 'cases.jsonl');
  expect(errors).toEqual([]);
  return suite;
}

/** Fresh in-memory stores, counting the opens and the clocks asked for. */
function opener() {
  const opened: { now?: number }[] = [];
  const open: OpenEvalStore = async ({ store, now }) => {
    opened.push({ now });
    const memory = await MemoryStore.open({
      backend: new InMemoryBackend(),
      ...store,
      ...(now !== undefined ? { now: () => now } : {}),
    });
    return { store: memory, close: () => memory.close() };
  };
  return { open, opened };
}

describe('runEval: recall', () => {
  it('scores R@k per k as the share of the expected memories among what recall({ k }) returns', async () => {
    const suite = suiteOf(
      { memory: 'Ana lives in Lisbon, near the river.', id: 'ana' },
      { memory: 'Ben lives in Porto.', id: 'ben' },
      { memory: "Ana's office moved to a new floor." },
      { question: 'Where do Ana and Ben live?', expect: ['ana', 'ben'] },
    );
    const report = await runEval(suite, { open: opener().open, ks: [1, 5] });
    const [q] = report.configurations[0]!.cases[0]!.questions;
    expect(q!.recall).toEqual({ 1: 0.5, 5: 1 });
    expect(q!.got.slice(0, 2).sort()).toEqual(['ana', 'ben']);
    // A memory without an id is shown by its line.
    expect(q!.got).toContain('@3');
    expect(report.configurations[0]!.summary.recall!.recall).toEqual({ 1: 50, 5: 100 });
  });

  it('stores a conversation per session or as bare turns, as configured; one store serves configurations that store alike', async () => {
    const suite = suiteOf(
      { case: 'sam' },
      { session: 's1', at: '2025-03-04T18:30:00Z' },
      { speaker: 'Sam', text: 'I finally joined the bouldering gym near the station.' },
      { speaker: 'assistant', text: 'Nice! How often do you plan to go climbing there?' },
      { speaker: 'Sam', text: 'Every Tuesday and Thursday after work.', id: 'schedule' },
      { speaker: 'Sam', text: 'My sister is visiting next week.' },
      { speaker: 'Sam', text: 'We might go to the coast with Sam junior.' },
      { speaker: 'Sam', text: 'Sam says the weather looks fine for Sam.' },
      { question: 'How often does Sam go climbing?', expect: ['schedule'] },
    );
    const { open, opened } = opener();
    const report = await runEval(suite, {
      open,
      ks: [3],
      configurations: [{ mode: 'conversation' }, { mode: 'conversation', signal: 'keyword' }, { mode: 'turn' }],
    });
    const r3 = report.configurations.map((c) => c.cases[0]!.questions[0]!.recall[3]);
    // Only in its session, with the question asked in the turn before it as context, does the answer come back.
    expect(r3).toEqual([1, 1, 0]);
    expect(report.configurations.map((c) => c.name)).toEqual(['defaults', 'signal=keyword', 'mode=turn']);
    expect(opened).toHaveLength(2);
  });

  it('lets a memory that identical turns collapsed into stand for each of them, and passes the case clock to the store', async () => {
    const suite = suiteOf(
      { case: 'echo', now: '2024-06-01T00:00:00Z' },
      { speaker: 'Ana', text: 'See you at the tram stop.', id: 'first' },
      { speaker: 'Ana', text: 'See you at the tram stop.', id: 'second' },
      { question: 'Which tram stop?', expect: ['second'], category: 'single-hop' },
    );
    const { open, opened } = opener();
    const report = await runEval(suite, { open, ks: [1], configurations: [{ mode: 'turn' }] });
    const [q] = report.configurations[0]!.cases[0]!.questions;
    expect(q!.got).toEqual(['first', 'second']);
    expect(q!.recall[1]).toBe(1);
    expect(opened).toEqual([{ now: Date.parse('2024-06-01T00:00:00Z') }]);
    expect(report.configurations[0]!.summary.recall!.byCategory).toEqual({
      'single-hop': { questions: 1, recall: { 1: 100 } },
    });
  });

  it('refuses a configuration it cannot run', async () => {
    const suite = suiteOf({ memory: 'x', id: 'x' }, { question: 'x?', expect: ['x'] });
    const open = opener().open;
    await expect(runEval(suite, { open, configurations: [{ mode: 'chat' as 'turn' }] })).rejects.toThrow(
      /Unknown mode "chat"/,
    );
    await expect(runEval(suite, { open, ks: [0] })).rejects.toThrow(/ks must be positive whole numbers/);
  });
});

describe('runEval: skills', () => {
  const library = [
    {
      skill: {
        name: 'docker',
        description: 'Docker images, containers and compose files',
        content: '# Docker\n- Use multi-stage builds.',
        globPatterns: ['Dockerfile'],
      },
    },
    {
      skill: {
        name: 'postgres',
        description: 'PostgreSQL queries, indexes and migrations',
        content: '# Postgres\n- Index foreign keys.',
      },
    },
    { skill: { name: 'house-style', content: 'Answer briefly.', alwaysApply: true } },
  ];

  it('scores top-1, hit@k and false activations; alwaysApply skills are not counted as chosen', async () => {
    const suite = suiteOf(
      ...library,
      { message: 'review this', files: ['services/api/Dockerfile'], expect: ['docker'], category: 'path' },
      { message: 'add an index to the postgres orders table', expect: ['postgres'], category: 'paraphrase' },
      { message: 'this postgres query in the docker container is slow', expect: ['docker'], category: 'paraphrase' },
      { message: 'what is the capital of Peru?', expect: [] },
    );
    const report = await runEval(suite, { open: opener().open });
    const messages = report.configurations[0]!.cases[0]!.messages;
    expect(messages.map((m) => m.got)).toEqual([['docker'], ['postgres'], ['postgres', 'docker'], []]);
    expect(messages.map((m) => [m.top1, m.hit])).toEqual([
      [true, true],
      [true, true],
      [false, true],
      [false, true],
    ]);
    const skills = report.configurations[0]!.summary.skills!;
    expect(skills).toMatchObject({ messages: 3, unrelated: 1, falseActivation: 0 });
    expect(skills.top1).toBeCloseTo(200 / 3, 6);
    expect(skills.hit).toBe(100);
    expect(skills.byCategory).toEqual({
      paraphrase: { messages: 2, top1: 50, hit: 100 },
      path: { messages: 1, top1: 100, hit: 100 },
    });
    expect(report.configurations[0]!.cases[0]!.skillsMs).toBeGreaterThan(0);
  });

  it('activates with each configuration’s options: k = 1 keeps the first skill only', async () => {
    const suite = suiteOf(
      ...library,
      { message: 'this postgres query in the docker container is slow', expect: ['docker'] },
      { message: 'build the Dockerfile', expect: [] },
    );
    const report = await runEval(suite, { open: opener().open, configurations: [{}, { activate: { k: 1 } }] });
    const got = report.configurations.map((c) => c.cases[0]!.messages.map((m) => m.got));
    expect(got).toEqual([
      [['postgres', 'docker'], ['docker']],
      [['postgres'], ['docker']],
    ]);
    expect(report.configurations.map((c) => [c.summary.skills!.hit, c.summary.skills!.falseActivation])).toEqual([
      [100, 100],
      [0, 100],
    ]);
  });
});
