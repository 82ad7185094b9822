import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { detectGitBranch } from '@agentmem/core';
import { beforeEach, describe, expect, it } from 'vitest';
import { runCli, useFreshStore } from './run-cli';

const store = useFreshStore();
const cli = store.cli;

async function remember(content: string, type = 'project', ...extra: string[]): Promise<string> {
  const run = await cli('remember', content, '--type', type, '--json', ...extra);
  expect(run.code, run.stderr).toBe(0);
  return run.json().memory.id;
}

describe('remember', () => {
  it('stores a memory and prints it', async () => {
    const run = await cli('remember', 'The API uses cursor pagination.', '--type', 'reference', '--tags', 'api, style');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('Remembered:');
    expect(run.stdout).toContain('The API uses cursor pagination.');
    expect(run.stdout).toMatch(/namespace reference:main/);
    expect(run.stdout).toContain('api, style');
  });

  it('--json returns the memory and whether it was new; the same content is stored once', async () => {
    const first = await cli('remember', 'Dana prefers tabs.', '--type', 'user', '--importance', '0.9', '--json');
    expect(first.code).toBe(0);
    expect(first.json()).toMatchObject({
      created: true,
      memory: { type: 'user', importance: 0.9, content: 'Dana prefers tabs.' },
    });
    const again = await cli('remember', 'Dana prefers tabs.', '--type', 'user', '--json');
    expect(again.json()).toMatchObject({ created: false, memory: { id: first.json().memory.id } });
    expect((await cli('stats', '--json')).json().total).toBe(1);
  });

  it('takes the branch from git when --branch is not given', async () => {
    const run = await runCli(['--db', store.db, 'remember', 'Uses Kafka.', '--type', 'project', '--json']);
    const branch = await detectGitBranch();
    expect(run.json().memory).toMatchObject({ namespace: `project:${branch}` });
  });

  it('records the agent and branch given as global options', async () => {
    const run = await cli(
      '--branch',
      'feature-x',
      '--agent',
      'bot-1',
      'remember',
      'Uses Kafka.',
      '--type',
      'project',
      '--json',
    );
    expect(run.json().memory).toMatchObject({ namespace: 'project:feature-x', agentId: 'bot-1', branch: 'feature-x' });
  });

  it('rejects empty content with an AgentMemoryError and writes nothing', async () => {
    await remember('Something real.');
    const run = await cli('remember', '   ', '--type', 'project');
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^error \[INVALID_INPUT\]: Memory content is empty/);
    expect(run.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect((await cli('stats', '--json')).json().total).toBe(1);
  });

  it('treats an invalid or missing type as a usage error (exit 2)', async () => {
    const invalid = await cli('remember', 'x', '--type', 'opinion');
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toMatch(/error \[USAGE\]: .*opinion.*user, feedback, project, reference/);
    const missing = await cli('remember', 'x');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--type');
    expect(existsSync(store.db)).toBe(false);
  });

  it('reports errors as JSON with --json', async () => {
    // (An out-of-range --importance is a usage error now: see cli-polish.test.ts.)
    const run = await cli('remember', '   ', '--type', 'project', '--json');
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(JSON.parse(run.stderr)).toEqual({
      error: {
        code: 'INVALID_INPUT',
        message: expect.stringMatching(/content is empty/),
        details: { field: 'content', rule: 'empty' },
      },
    });
  });
});

describe('recall', () => {
  beforeEach(async () => {
    await remember('The webhook handler must be idempotent: Stripe retries events.', 'project');
    await remember('Never mock the database in integration tests.', 'feedback');
    await remember('Dana prefers short answers.', 'user');
  });

  it('prints a table with id, type, score, signals and content', async () => {
    const run = await cli('recall', 'stripe webhook retries');
    expect(run.code, run.stderr).toBe(0);
    const [header, , first] = run.stdout.split('\n');
    expect(header).toMatch(/^ID\s+TYPE\s+SCORE\s+SIGNALS\s+CONTENT$/);
    expect(first).toMatch(/project\s+\d\.\d{3}\s+.*keyword #1.*The webhook handler/);
  });

  it('--json gives scores, relevance and which signal matched', async () => {
    const run = await cli('recall', 'mock database tests', '-k', '2', '--json');
    const out = run.json();
    expect(out.query).toBe('mock database tests');
    expect(out.results.length).toBeGreaterThan(0);
    expect(out.results.length).toBeLessThanOrEqual(2);
    expect(out.results[0]).toMatchObject({ type: 'feedback', signals: { keyword: { rank: 1 } } });
    expect(out.results[0].score).toBeGreaterThan(0);
  });

  it('limits to --types', async () => {
    const run = await cli('recall', 'Dana prefers short answers', '--types', 'project,feedback', '--json');
    expect(run.json().results.every((r: { type: string }) => r.type !== 'user')).toBe(true);
    expect((await cli('recall', 'x', '--types', 'nope')).code).toBe(2);
  });

  it('says so when nothing matches', async () => {
    const run = await cli('recall', 'zebra');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('No memories match');
  });

  it('refuses a missing database instead of creating one', async () => {
    const missing = store.tmp.path('nope.db');
    const run = await runCli(['--db', missing, 'recall', 'anything']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/error \[NOT_FOUND\]: No memory database at/);
    expect(existsSync(missing)).toBe(false);
  });
});

describe('forget', () => {
  it('refuses without --yes when no terminal is attached, and changes nothing', async () => {
    const id = await remember('Temporary fact.');
    const run = await cli('forget', id);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('About to forget:');
    expect(run.stderr).toMatch(/error \[CONFIRMATION_REQUIRED\]: .*pass --yes/);
    expect((await cli('stats', '--json')).json().total).toBe(1);
  });

  it('forgets with --yes; history keeps the record', async () => {
    const id = await remember('Temporary fact.');
    const run = await cli('forget', id, '--yes', '--json');
    expect(run.code, run.stderr).toBe(0);
    expect(run.json()).toMatchObject({ forgotten: true, memory: { id } });
    expect((await cli('stats', '--json')).json().total).toBe(0);
    const history = await cli('history', id, '--json');
    expect(history.json().entries.map((e: { action: string }) => e.action)).toEqual(['create', 'forget']);
  });

  it('asks on a terminal: "y" forgets, anything else aborts', async () => {
    const id = await remember('Temporary fact.');
    const no = await runCli(['--db', store.db, 'forget', id], { isTTY: true, stdin: 'n\n' });
    expect(no.code).toBe(1);
    expect(no.stderr).toContain(`Forget memory ${id}? [y/N]`);
    expect(no.stderr).toContain('error [ABORTED]');
    expect((await cli('stats', '--json')).json().total).toBe(1);
    const yes = await runCli(['--db', store.db, 'forget', id], { isTTY: true, stdin: 'y\n' });
    expect(yes.code, yes.stderr).toBe(0);
    expect(yes.stdout).toContain(`Forgot ${id}.`);
    expect((await cli('stats', '--json')).json().total).toBe(0);
  });

  it('reports an unknown id', async () => {
    await remember('Something.');
    const run = await cli('forget', 'mem_nope', '--yes');
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/error \[NOT_FOUND\]: No memory with id mem_nope/);
  });
});

describe('history and stats', () => {
  it('history prints a table of changes', async () => {
    const id = await remember('Fact one.');
    const run = await cli('history', id);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^AT\s+ACTION\s+AGENT\s+DETAIL\s+CONTENT/);
    expect(run.stdout).toMatch(/create\s+Fact one\./);
    const unknown = await cli('history', 'mem_unknown', '--json');
    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.stderr).error.code).toBe('NOT_FOUND');
  });

  it('stats counts active memories per namespace', async () => {
    await remember('Dana prefers dark mode.', 'user');
    await remember('Orders are stored in PostgreSQL 16.', 'project');
    await remember('Deploys run every Tuesday at noon.', 'project');
    const json = (await cli('stats', '--json')).json();
    expect(json).toMatchObject({ total: 3, inactive: 0, branch: 'main', embedder: { dimension: expect.any(Number) } });
    expect(
      Object.fromEntries(json.namespaces.map((n: { namespace: string; count: number }) => [n.namespace, n.count])),
    ).toEqual({
      user: 1,
      'project:main': 2,
    });
    const human = await cli('stats');
    expect(human.stdout).toMatch(/Active:\s+3/);
    expect(human.stdout).toMatch(/project:main\s+2/);
  });
});

describe('export and import', () => {
  const line = (value: object) => JSON.stringify(value);

  it('exports every memory of every namespace as JSONL, inactive ones too', async () => {
    await remember('On main.', 'project');
    await cli('--branch', 'feature-y', 'remember', 'On a feature branch.', '--type', 'reference');
    const file = store.tmp.path('in.jsonl');
    writeFileSync(file, line({ id: 'mem_old', content: 'Old fact.', type: 'project', supersededBy: 'mem_x' }));
    expect((await cli('import', file)).code).toBe(0);
    const run = await cli('export');
    expect(run.code, run.stderr).toBe(0);
    const exported = run.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(exported.map((m) => m.namespace).sort()).toEqual(['project:main', 'project:main', 'reference:feature-y']);
    expect(exported.find((m) => m.id === 'mem_old')).toMatchObject({ supersededBy: 'mem_x' });
    // superseded memories stay out of recall
    expect((await cli('recall', 'Old fact', '--json')).json().results.map((r: { id: string }) => r.id)).not.toContain(
      'mem_old',
    );
  });

  it('round-trips into a new database with the same ids; re-importing adds nothing', async () => {
    await remember('Dana prefers short answers.', 'user', '--tags', 'style');
    await remember('Orders live in PostgreSQL 16.', 'project', '--importance', '0.8');
    await remember('Runbook: wiki/runbooks/payments.', 'reference');
    await cli('--branch', 'dev', 'remember', 'Dev branch uses a mock payment provider.', '--type', 'project');
    const out = store.tmp.path('export.jsonl');
    const exported = await cli('export', '--out', out, '--json');
    expect(exported.json()).toEqual({ exported: 4, path: out });

    const other = store.tmp.path('other.db');
    const first = await runCli(['--db', other, 'import', out, '--json']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.json()).toMatchObject({ total: 4, imported: 4, skipped: 0 });
    const again = await runCli(['--db', other, 'import', out]);
    expect(again.stdout).toContain('Imported 0 of 4 memories');
    expect(again.stdout).toContain('4 already present');

    const reexport = await runCli(['--db', other, 'export']);
    const byId = (text: string) =>
      Object.fromEntries(
        text
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l))
          .map((m) => [m.id, [m.content, m.type, m.namespace, m.importance, m.tags, m.createdAt]]),
      );
    expect(byId(reexport.stdout)).toEqual(byId(readFileSync(out, 'utf8')));
    // the imported store is searchable, on the branch each memory came from
    const recalled = await runCli(['--db', other, '--branch', 'dev', 'recall', 'mock payment provider', '--json']);
    expect(recalled.json().results[0].content).toBe('Dev branch uses a mock payment provider.');
  });

  it('imports and exports more memories than one page (no silent limits)', async () => {
    const count = 2500; // the store scans in pages of 1000
    const file = store.tmp.path('many.jsonl');
    const types = ['user', 'feedback', 'project', 'reference'];
    writeFileSync(
      file,
      Array.from({ length: count }, (_, i) => line({ content: `Fact number ${i}.`, type: types[i % 4] })).join('\n'),
    );
    expect((await cli('import', file, '--json')).json()).toMatchObject({ imported: count });
    const exported = (await cli('export')).stdout.trim().split('\n');
    expect(exported).toHaveLength(count);
    expect(new Set(exported.map((l) => JSON.parse(l).id)).size).toBe(count);
  });

  it('validates every line first: a bad line means nothing is imported, and all bad lines are reported', async () => {
    await remember('Existing.');
    const file = store.tmp.path('bad.jsonl');
    writeFileSync(
      file,
      [
        line({ content: 'Good one.', type: 'project' }),
        '{not json',
        line({ content: 'Also good.', type: 'user' }),
        line({ content: '', type: 'user' }),
        '',
        line({ content: 'Wrong type.', type: 'opinion' }),
      ].join('\n'),
    );
    const run = await cli('import', file);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /error \[INVALID_INPUT\]: bad\.jsonl has 3 invalid lines \(.*\); nothing was imported/,
    );
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(/line 2: not valid JSON/);
    expect(run.stderr).toMatch(/line 4: Memory content is empty/);
    expect(run.stderr).toMatch(/line 6: Unknown memory type "opinion"/);
    expect((await cli('stats', '--json')).json().total).toBe(1);
  });

  it('rejects an id used twice in one file', async () => {
    const file = store.tmp.path('dup.jsonl');
    writeFileSync(
      file,
      `${line({ id: 'm1', content: 'A.', type: 'user' })}\n${line({ id: 'm1', content: 'B.', type: 'user' })}\n`,
    );
    const run = await cli('import', file, '--json');
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stderr).error.message).toMatch(/line 2: id m1 is already used on line 1/);
  });

  it('imports minimal lines and skips content that is already stored', async () => {
    await remember('Already here.', 'feedback');
    const file = store.tmp.path('min.jsonl');
    writeFileSync(
      file,
      `${line({ content: 'Already here.', type: 'feedback' })}\n${line({ content: 'New here.', type: 'feedback' })}\n`,
    );
    const run = await cli('import', file, '--json');
    expect(run.json()).toMatchObject({ total: 2, imported: 1, skipped: 1 });
    expect((await cli('stats', '--json')).json().total).toBe(2);
  });
});

describe('tenants, stdin and progress', () => {
  it('keeps tenants apart; export --all-tenants carries each memory to its own tenant', async () => {
    await cli('--tenant', 'alice', 'remember', 'Alice likes dark mode.', '--type', 'user');
    await cli('--tenant', 'bob', 'remember', 'Bob likes light mode.', '--type', 'user');
    const alice = await cli('--tenant', 'alice', 'recall', 'likes mode', '--json');
    expect(alice.json().results.map((r: { content: string }) => r.content)).toEqual(['Alice likes dark mode.']);
    expect((await cli('--tenant', 'alice', 'export')).stdout.trim().split('\n')).toHaveLength(1);

    const all = await cli('export', '--all-tenants');
    const other = store.tmp.path('other.db');
    const imported = await runCli(['--db', other, 'import', '-', '--json'], { stdin: all.stdout });
    expect(imported.json()).toMatchObject({ file: 'stdin', total: 2, imported: 2 });
    const bob = await runCli(['--db', other, '--tenant', 'bob', 'stats', '--json']);
    expect(bob.json().total).toBe(1);
  });

  it('import --dry-run counts and writes nothing', async () => {
    const file = store.tmp.path('in.jsonl');
    writeFileSync(file, `${JSON.stringify({ content: 'A fact.', type: 'user' })}\n`);
    await remember('Something else.', 'project');
    const run = await cli('import', file, '--dry-run');
    expect(run.stdout).toContain('Would import 1 of 1 memory');
    expect((await cli('stats', '--json')).json().total).toBe(1);
  });

  it('shows progress on a terminal only, on stderr', async () => {
    await remember('One.');
    await remember('Two.');
    // Progress goes with export --out; export to stdout shows the data itself (cli-polish.test.ts).
    const out = store.tmp.path('out.jsonl');
    const tty = await runCli(['--db', store.db, 'export', '--out', out], { isTTY: true });
    expect(tty.stderr).toContain('exported 2/2');
    expect(readFileSync(out, 'utf8').trim().split('\n')).toHaveLength(2);
    expect((await cli('export', '--out', out)).stderr).toBe('');
  });
});

describe('usage', () => {
  it('prints help with every command and exits 0', async () => {
    const run = await runCli(['--help']);
    expect(run.code).toBe(0);
    for (const command of ['demo', 'remember', 'recall', 'forget', 'history', 'stats', 'export', 'import']) {
      expect(run.stdout).toContain(command);
    }
  });

  it('help for one command exits 0; no command at all is a usage error', async () => {
    const help = await runCli(['help', 'recall']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--include-superseded');
    const none = await runCli([]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('Usage: agentmem');
  });

  it('exits 2 on an unknown command or option', async () => {
    expect((await runCli(['remembr'])).code).toBe(2);
    const run = await runCli(['recall', 'x', '--nope']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/error \[USAGE\]: unknown option '--nope'/);
  });
});
