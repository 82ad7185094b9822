import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AgentMemoryError } from '../errors';
import { parseCaseFile } from './case-file';
import { loadEvalFile } from './load-eval-file';

const lines = (...objects: (object | string)[]) =>
  objects.map((o) => (typeof o === 'string' ? o : JSON.stringify(o))).join('\n');

describe('case files', () => {
  it('reads cases, sessions, turns, memories, questions and messages; blank and comment lines are skipped', () => {
    const { suite, errors } = parseCaseFile(
      lines(
        '# a comment',
        { case: 'ana', now: '2024-07-01' },
        '',
        { session: 's1', at: '2024-05-08T13:56:00Z', title: 'moving' },
        { speaker: 'Ana', text: 'I moved to Lisbon in March.', id: 'moved' },
        { speaker: 'Ben', text: 'How do you like it?' },
        '// another comment',
        { memory: 'Ana is vegetarian', id: 'veg', type: 'user', importance: 0.9, tags: ['food'], at: '2024-05-01' },
        { question: 'Where does Ana live?', expect: 'moved', category: 'single-hop' },
        { skill: { name: 'docker', content: '# Docker\n- multi-stage builds' } },
        { message: 'review the Dockerfile', files: 'Dockerfile', expect: ['docker'] },
        { message: 'hello there', expect: [] },
      ),
      'cases.jsonl',
    );
    expect(errors).toEqual([]);
    const [c] = suite.cases;
    expect(c).toMatchObject({ name: 'ana', line: 2, now: '2024-07-01T00:00:00.000Z' });
    expect(c!.sessions).toEqual([
      {
        id: 's1',
        line: 4,
        at: '2024-05-08T13:56:00.000Z',
        title: 'moving',
        turns: [
          { line: 5, speaker: 'Ana', text: 'I moved to Lisbon in March.', id: 'moved' },
          { line: 6, speaker: 'Ben', text: 'How do you like it?' },
        ],
      },
    ]);
    expect(c!.memories).toEqual([
      {
        line: 8,
        content: 'Ana is vegetarian',
        type: 'user',
        id: 'veg',
        importance: 0.9,
        tags: ['food'],
        occurredAt: '2024-05-01T00:00:00.000Z',
      },
    ]);
    expect(c!.questions).toEqual([
      { line: 9, question: 'Where does Ana live?', expect: ['moved'], category: 'single-hop' },
    ]);
    expect(c!.messages.map((m) => [m.files, m.expect])).toEqual([
      [['Dockerfile'], ['docker']],
      [[], []],
    ]);
  });

  it('lines before any case line are a case named after the file; turns before any session line are a session', () => {
    const { suite, errors } = parseCaseFile(
      lines({ speaker: 'Ana', text: 'Hi', id: 'hi' }, { question: 'Who said hi?', expect: ['hi'] }),
      'chat.jsonl',
    );
    expect(errors).toEqual([]);
    expect(suite.cases.map((c) => [c.name, c.sessions.map((s) => s.id)])).toEqual([['chat.jsonl', ['session_1']]]);
  });

  it('points every problem at its line and field, and says what to do', () => {
    const { errors } = parseCaseFile(
      lines(
        { case: 'x' },
        { memory: 'Ana lives in Lisbon', id: 'lives' },
        { memory: 'Ana likes trams', id: 'lives' },
        { question: 'Where does Ana live?', expected: ['lives'] },
        { question: 'Where?', expect: ['nowhere'] },
        'not json',
        '[1, 2]',
        { speaker: 'Ana', text: '' },
        { memory: 'x', type: 'usr', at: 'yesterday', importance: 2 },
        { memory: 'y', question: 'z' },
        { turn: 'Ana: hi' },
        { question: 'Empty?', expect: [] },
      ),
      'cases.jsonl',
    );
    const at = (line: number) => errors.filter((e) => e.line === line).map((e) => [e.field, e.message]);
    expect(at(3)).toEqual([['id', expect.stringContaining('id "lives" is already used on line 2')]]);
    // A misspelt field is named with the one meant, and not reported missing as well.
    expect(at(4)).toEqual([['expected', expect.stringContaining('Did you mean "expect"?')]]);
    expect(at(5)).toEqual([['expect[0]', expect.stringContaining('has id "nowhere" (ids: lives)')]]);
    expect(at(6)).toEqual([[undefined, expect.stringContaining('not JSON')]]);
    expect(at(7)).toEqual([[undefined, expect.stringContaining('not a JSON object')]]);
    expect(at(8)).toEqual([['text', '"text" must be a non-empty string.']]);
    expect(at(9).map(([field]) => field)).toEqual(['type', 'importance', 'at']);
    expect(at(10)).toEqual([[undefined, expect.stringContaining('has memory and question')]]);
    expect(at(11)).toEqual([[undefined, expect.stringContaining('says neither of case, session, speaker')]]);
    expect(at(12)).toEqual([['expect', expect.stringContaining('at least one')]]);
  });

  it('refuses a case that asks nothing, questions with nothing to recall, messages with no skills', () => {
    const { errors } = parseCaseFile(
      lines(
        { case: 'idle' },
        { memory: 'a fact' },
        { case: 'empty' },
        { question: 'Anything?', expect: ['a'] },
        { message: 'review this', expect: [] },
      ),
      'cases.jsonl',
    );
    expect(errors.map((e) => [e.line, e.field])).toEqual([
      [1, undefined],
      [4, 'question'],
      [5, 'message'],
    ]);
    expect(errors[0]!.message).toContain('case "idle" asks nothing');
  });
});

describe('loadEvalFile', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'agentmem-eval-file-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const write = (name: string, text: string) => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };

  it('reads the skill libraries a case names, relative to the file, and checks the expected names', async () => {
    mkdirSync(join(dir, 'skills'));
    writeFileSync(join(dir, 'skills', 'docker.md'), '---\ndescription: Docker images\n---\n# Docker\n- pin images');
    const file = write(
      'cases.jsonl',
      lines(
        { skills: './skills' },
        { message: 'build the image', expect: ['docker'] },
        { message: 'deploy', expect: ['kubernetes'] },
      ),
    );
    const error = await loadEvalFile(file).catch((e: unknown) => e);
    expect(AgentMemoryError.isInstance(error) && error.code).toBe('INVALID_INPUT');
    expect((error as AgentMemoryError).details?.errors).toEqual([
      {
        line: 3,
        field: 'expect[0]',
        message: expect.stringContaining('no skill named "kubernetes" (1 skills, e.g. docker)'),
      },
    ]);
    write('ok.jsonl', lines({ skills: 'skills' }, { message: 'build the image', expect: ['docker'] }));
    const suite = await loadEvalFile(join(dir, 'ok.jsonl'));
    expect(suite.cases[0]!.skills.map((s) => s.name)).toEqual(['docker']);
  });

  it('says which line names a library that is not there, and refuses expecting an alwaysApply skill', async () => {
    const file = write(
      'cases.jsonl',
      lines(
        { skills: './missing' },
        { skill: { name: 'style', content: 'Be brief.', alwaysApply: true } },
        { message: 'hi', expect: ['style'] },
      ),
    );
    const error = (await loadEvalFile(file).catch((e: unknown) => e)) as AgentMemoryError;
    const errors = (error.details?.errors ?? []) as { line: number; field: string }[];
    expect(errors.map((e) => [e.line, e.field])).toEqual([
      [1, 'skills'],
      [3, 'expect[0]'],
    ]);
    expect(error.message).toContain(
      'cases.jsonl has 2 problems; nothing was run. cases.jsonl:1 skills: no skills directory',
    );
  });

  it('names the field meant when two letters are swapped and one is too many', () => {
    const { errors } = parseCaseFile(
      lines({ case: 'x' }, { memory: 'Ana lives in Lisbon', id: 'lives' }, { question: 'Where?', exepcts: ['lives'] }),
      'cases.jsonl',
    );
    expect(errors.map((e) => e.message)).toContainEqual(expect.stringContaining('Did you mean "expect"?'));
  });

  it('counts a single problem in the singular', async () => {
    const file = write('one.jsonl', lines({ skills: './missing' }, { message: 'hi', expect: [] }));
    const error = (await loadEvalFile(file).catch((e: unknown) => e)) as AgentMemoryError;
    expect(error.message).toContain('one.jsonl has 1 problem; nothing was run. one.jsonl:1 skills:');
  });

  it('reads LoCoMo JSON, and refuses another JSON array or a missing file', async () => {
    const locomo = write(
      'locomo.json',
      JSON.stringify([
        {
          sample_id: 'conv-1',
          conversation: {
            speaker_a: 'Ana',
            speaker_b: 'Ben',
            session_1_date_time: '1:56 pm on 8 May, 2023',
            session_1: [
              { speaker: 'Ana', dia_id: 'D1:1', text: 'I moved to Lisbon.' },
              { speaker: 'Ben', dia_id: 'D1:2', text: 'Nice!', blip_caption: 'a tram' },
            ],
          },
          qa: [
            { question: 'Where does Ana live?', evidence: ['D1:1'], category: 4 },
            { question: 'What did Ben share?', evidence: ['D:1:02'], category: 1 },
            { question: 'Unanswerable?', evidence: ['D9:9'], category: 5 },
          ],
        },
      ]),
    );
    const suite = await loadEvalFile(locomo);
    expect(suite.cases).toHaveLength(1);
    expect(suite.cases[0]!.sessions[0]).toMatchObject({ id: 'session_1', at: '2023-05-08T13:56:00.000Z' });
    expect(suite.cases[0]!.sessions[0]!.turns[1]!.text).toBe('Nice! [shares a photo: a tram]');
    expect(suite.cases[0]!.questions).toEqual([
      { line: 0, question: 'Where does Ana live?', expect: ['D1:1'], category: 'single-hop' },
      { line: 0, question: 'What did Ben share?', expect: ['D1:2'], category: 'multi-hop' },
    ]);
    expect(suite.warnings).toEqual([expect.stringContaining('1 question(s) of locomo.json have no evidence')]);
    await expect(loadEvalFile(write('array.json', '[{"question": "x"}]'))).rejects.toThrow(/JSON array but not LoCoMo/);
    await expect(loadEvalFile(join(dir, 'none.jsonl'))).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
