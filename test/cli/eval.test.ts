import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, tempDir } from './run-cli';

const lines = (...objects: object[]) => `${objects.map((o) => JSON.stringify(o)).join('\n')}\n`;

/** A chat where one answer needs its neighbour as context, a remembered preference, and a small skill library. */
const CASES = [
  { case: 'sam' },
  { session: 's1', at: '2025-03-04T18:30:00Z' },
  { speaker: 'Sam', text: 'I finally joined the bouldering gym near the station.' },
  { speaker: 'assistant', text: 'Nice! How often do you plan to go climbing there?' },
  { speaker: 'Sam', text: 'Every Tuesday and Thursday after work.', id: 'schedule' },
  { speaker: 'Sam', text: 'My sister is visiting next week.' },
  { speaker: 'Sam', text: 'We might go to the coast with Sam junior.' },
  { speaker: 'Sam', text: 'Sam says the weather looks fine for Sam.' },
  { memory: 'Sam prefers answers in metric units.', id: 'units', type: 'feedback' },
  { question: 'How often does Sam go climbing?', expect: ['schedule'], category: 'context' },
  { question: 'Which units does Sam want?', expect: ['units'] },
  { case: 'skills' },
  { skills: './skills' },
  { message: 'review this', files: ['services/api/Dockerfile'], expect: ['docker'] },
  { message: 'add an index to the postgres orders table', expect: ['postgres'] },
  { message: 'what is the capital of Peru?', expect: [] },
];

describe('agentmem eval', () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => {
    dir = tempDir();
    mkdirSync(dir.path('skills'));
    writeFileSync(
      dir.path('skills/docker.md'),
      '---\ndescription: Docker images, containers and compose files\nglob_patterns: ["Dockerfile"]\n---\n# Docker\n- Use multi-stage builds.\n',
    );
    writeFileSync(
      dir.path('skills/postgres.md'),
      '---\ndescription: PostgreSQL queries, indexes and migrations\n---\n# Postgres\n- Index foreign keys.\n',
    );
    writeFileSync(dir.path('cases.jsonl'), lines(...CASES));
  });
  afterEach(() => dir.cleanup());

  it('runs a case file on SQLite stores and prints R@k, top-1, hit@k and false activations per case', async () => {
    // One neighbour on each side as context: the question asked in the turn before the answer finds it.
    const run = await runCli(['eval', dir.path('cases.jsonl'), '--window', '1', '--k', '3,10']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('cases.jsonl: 2 cases, 2 questions, 3 messages; 1 configuration on SQLite.');
    expect(run.stdout).toMatch(/window=1\s+sam\s+2\s+100\.0\s+100\.0/);
    expect(run.stdout).toMatch(/window=1\s+skills\s+2\s+100\.0\s+100\.0\s+0\.0 of 1/);
  });

  it('--json: every configuration with its figures, each case and each question or message with what came back', async () => {
    const run = await runCli([
      'eval',
      dir.path('cases.jsonl'),
      '--mode',
      'conversation,turn',
      '--window',
      '1',
      '--k',
      '3',
      '--json',
    ]);
    expect(run.code).toBe(0);
    const out = run.json();
    expect(out).toMatchObject({ file: 'cases.jsonl', ks: [3], passed: true, gates: [], warnings: [] });
    expect(out.configurations.map((c: { name: string; options: object }) => [c.name, c.options])).toEqual([
      ['window=1', { mode: 'conversation', window: 1 }],
      ['mode=turn window=1', { mode: 'turn', window: 1 }],
    ]);
    const [conversation, turn] = out.configurations;
    expect(conversation.recall).toEqual({
      questions: 2,
      'R@3': 100,
      byCategory: { context: { questions: 1, 'R@3': 100 } },
    });
    // Stored turn by turn, the answer has no context to be found by.
    expect(turn.recall['R@3']).toBe(50);
    expect(conversation.skills).toEqual({
      messages: 2,
      'top-1': 100,
      'hit@3': 100,
      unrelated: 1,
      false: 0,
      meanActivated: expect.any(Number),
      byCategory: {},
    });
    const sam = turn.cases.find((c: { name: string }) => c.name === 'sam');
    expect(sam.questions[0]).toEqual({
      line: 10,
      question: 'How often does Sam go climbing?',
      category: 'context',
      expect: ['schedule'],
      got: expect.not.arrayContaining(['schedule']),
      'R@3': 0,
    });
    const skills = conversation.cases.find((c: { name: string }) => c.name === 'skills');
    expect(skills.messages[0]).toEqual({
      line: 14,
      message: 'review this',
      files: ['services/api/Dockerfile'],
      expect: ['docker'],
      got: ['docker'],
      'top-1': true,
      hit: true,
    });
  });

  it('exits 1 when a configuration is below a threshold, and says which', async () => {
    const below = await runCli([
      'eval',
      dir.path('cases.jsonl'),
      '--mode',
      'turn',
      '--k',
      '3',
      '--min-recall',
      '90',
      '--json',
    ]);
    expect(below.code).toBe(1);
    expect(below.json()).toMatchObject({
      passed: false,
      gates: [{ configuration: 'mode=turn', metric: 'R@3', value: 50, limit: 90, passed: false }],
    });
    const text = await runCli(['eval', dir.path('cases.jsonl'), '--mode', 'turn', '--k', '3', '--min-recall', '90']);
    expect(text.code).toBe(1);
    expect(text.stdout).toContain('FAIL: mode=turn R@3 50.0 (needs >= 90)');
    expect(text.stdout).toMatch(/miss cases\.jsonl:10 "How often does Sam go climbing\?": R@3 0\.00; missing schedule/);
    expect(text.stderr).toContain('below the threshold');
    const passing = await runCli([
      'eval',
      dir.path('cases.jsonl'),
      '--window',
      '1',
      '--k',
      '3',
      '--min-recall',
      '90',
      '--min-hit',
      '100',
      '--max-false',
      '0',
    ]);
    expect(passing.code).toBe(0);
    expect(passing.stdout).toContain('pass: window=1 R@3 100.0 (needs >= 90)');
    expect(passing.stdout).toContain('pass: window=1 hit@3 100.0 (needs >= 100)');
    expect(passing.stdout).toContain('pass: window=1 false 0.0 (needs <= 0)');
  });

  it('exits 1 when messages expecting no skill activate one beyond --max-false', async () => {
    writeFileSync(
      dir.path('false.jsonl'),
      lines(
        { skills: './skills' },
        { message: 'the docker image is huge', expect: [] },
        { message: 'hello', expect: [] },
      ),
    );
    const run = await runCli(['eval', dir.path('false.jsonl'), '--max-false', '10', '--json']);
    expect(run.code).toBe(1);
    expect(run.json().gates).toEqual([
      { configuration: 'defaults', metric: 'false', value: 50, limit: 10, passed: false },
    ]);
  });

  it('refuses a bad case file with every problem by line and field, and runs nothing', async () => {
    writeFileSync(
      dir.path('bad.jsonl'),
      lines(
        { memory: 'Ana lives in Lisbon', id: 'lives' },
        { question: 'Where does Ana live?', expected: ['lives'] },
        { question: 'Where?', expect: ['nowhere'] },
      ),
    );
    const run = await runCli(['eval', dir.path('bad.jsonl'), '--json']);
    expect(run.code).toBe(1);
    const error = JSON.parse(run.stderr).error;
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.details.errors).toEqual([
      { line: 2, field: 'expected', message: expect.stringContaining('Did you mean "expect"?') },
      {
        line: 3,
        field: 'expect[0]',
        message: expect.stringContaining('no memory or turn of case "bad.jsonl" has id "nowhere"'),
      },
    ]);
    const text = await runCli(['eval', dir.path('bad.jsonl')]);
    expect(text.stderr).toContain(
      'error [INVALID_INPUT]: bad.jsonl has 2 problems; nothing was run. bad.jsonl:2 expected:',
    );
  });

  it('reads the LoCoMo format: a case per conversation, questions broken down by category', async () => {
    writeFileSync(
      dir.path('locomo.json'),
      JSON.stringify([
        {
          sample_id: 'conv-1',
          conversation: {
            session_1_date_time: '1:56 pm on 8 May, 2023',
            session_1: [
              { speaker: 'Ana', dia_id: 'D1:1', text: 'I moved to Lisbon last month.' },
              { speaker: 'Ben', dia_id: 'D1:2', text: 'Do you like the trams there?' },
              { speaker: 'Ana', dia_id: 'D1:3', text: 'Yes, the 28 is my favourite.' },
            ],
          },
          qa: [
            { question: 'Where did Ana move?', evidence: ['D1:1'], category: 4 },
            { question: 'Which tram does Ana like?', evidence: ['D1:3'], category: 1 },
          ],
        },
      ]),
    );
    const run = await runCli(['eval', dir.path('locomo.json'), '--k', '1,3', '--json']);
    expect(run.code).toBe(0);
    const [c] = run.json().configurations;
    expect(c.cases.map((r: { name: string }) => r.name)).toEqual(['conv-1']);
    expect(Object.keys(c.recall.byCategory)).toEqual(['multi-hop', 'single-hop']);
    expect(c.recall.questions).toBe(2);
    expect(c.recall['R@3']).toBe(100);
  });

  it('takes its own stores: --db is neither read nor created, and --in-memory gives the same figures', async () => {
    const db = dir.path('never.db');
    const sqlite = await runCli(['--db', db, 'eval', dir.path('cases.jsonl'), '--json']);
    const memory = await runCli(['--db', db, 'eval', dir.path('cases.jsonl'), '--in-memory', '--json']);
    expect(existsSync(db)).toBe(false);
    const figures = (run: typeof sqlite) =>
      run.json().configurations.map((c: { recall: object; skills: object }) => [c.recall, c.skills]);
    expect(figures(memory)).toEqual(figures(sqlite));
  });

  it('--help writes each default as it is typed (-k 5,10), and -k defaults to 5 and 10', async () => {
    const help = await runCli(['eval', '--help']);
    expect(help.stdout).toContain('(default: 5,10)');
    expect(help.stdout).not.toContain('[5,10]');
    expect(help.stdout).toMatch(/conversation, turn\s+\(default conversation\)/);
    const run = await runCli(['eval', dir.path('cases.jsonl'), '--json']);
    expect(run.json().ks).toEqual([5, 10]);
  });

  it('refuses option values it cannot use as usage errors (exit 2)', async () => {
    for (const args of [
      ['--mode', 'chat'],
      ['--k', '0'],
      ['--signal', 'fuzzy'],
      ['--min-recall', '120'],
      ['--gap-ratio', '2'],
    ]) {
      const run = await runCli(['eval', dir.path('cases.jsonl'), ...args]);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr).toContain('error [USAGE]');
    }
    const missing = await runCli(['eval', join(dir.dir, 'none.jsonl')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('error [NOT_FOUND]: No case file at');
  });
});
