import { existsSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli, useFreshStore } from './run-cli';

// The mistakes of a first hour with the command line, each answered with the next step to take.
const store = useFreshStore();
const cli = store.cli;

describe('usage errors point at the help that answers them', () => {
  it("an unknown option of a command names that command's --help, which lists its options", async () => {
    const run = await cli('recall', 'orders', '--topk', '3');
    expect(run.code).toBe(2);
    expect(run.stderr).toBe("error [USAGE]: unknown option '--topk' (see agentmem recall --help)\n");
    const help = await runCli(['recall', '--help']);
    expect(help.stdout).toContain('-k, --k <n>');
  });

  it('a subcommand names its full path; a global mistake names the top-level help', async () => {
    const sub = await cli('skills', 'activate', 'review the Dockerfile', '--files', 'Dockerfile');
    expect(sub.code).toBe(2);
    expect(sub.stderr).toContain('(see agentmem skills activate --help)');
    const global = await runCli(['--verbose', 'stats']);
    expect(global.code).toBe(2);
    expect(global.stderr).toContain("unknown option '--verbose' (see agentmem --help)");
  });

  it('a missing argument names the command too', async () => {
    const run = await cli('import');
    expect(run.code).toBe(2);
    expect(run.stderr).toBe("error [USAGE]: missing required argument 'file' (see agentmem import --help)\n");
  });
});

describe("other tools' verbs", () => {
  it("mem0's add and search, LangGraph's get, and list name the command that does it, not a spelling guess", async () => {
    const said = async (...argv: string[]) => {
      const run = await runCli(argv);
      expect(run.code).toBe(2);
      return run.stderr;
    };
    expect(await said('add', 'Orders live in PostgreSQL 16')).toBe(
      'error [USAGE]: unknown command \'add\': `agentmem remember "<fact>" --type <type>` stores a memory (see agentmem --help)\n',
    );
    const search = await said('search', 'orders');
    expect(search).toContain('`agentmem recall "<query>"` finds memories');
    expect(search).not.toContain('Did you mean branch?'); // commander's guess by spelling
    expect(await said('get', 'mem_1')).not.toContain('forget?');
    expect(await said('list')).toContain('`agentmem export` prints every memory');
    expect(await said('delete', 'mem_1')).toContain('`agentmem forget <id>`');
    // A misspelt command still gets commander's suggestion; --json carries the same message.
    expect(await said('recal', 'orders')).toContain('(Did you mean recall?)');
    const json = await runCli(['--json', 'search', 'orders']);
    expect(JSON.parse(json.stderr).error.message).toContain('agentmem recall');
  });
});

describe('undo-merge', () => {
  it('without an id says where merge ids are listed', async () => {
    await cli('remember', 'Orders live in PostgreSQL 16', '--type', 'project');
    const run = await cli('undo-merge');
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      'error [USAGE]: Give a merge id (`agentmem merges` lists them), or --last for the most recent merge.\n',
    );
  });
});

describe('remember', () => {
  it('without anything asks for the content first, not for --type', async () => {
    const run = await cli('remember');
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("missing required argument 'content'");
    expect(run.stderr).not.toContain('--type');
  });

  it('without --type names the four types and an example, and creates no store', async () => {
    const run = await cli('remember', 'Orders live in PostgreSQL 16');
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      'error [USAGE]: remember needs --type, one of user, feedback, project, reference: agentmem remember "Orders live in PostgreSQL 16" --type project.\n',
    );
    expect(existsSync(store.db)).toBe(false);
    const json = await cli('remember', 'Orders live in PostgreSQL 16', '--json');
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stderr).error.code).toBe('USAGE');
    // With it, the same line works.
    expect((await cli('remember', 'Orders live in PostgreSQL 16', '--type', 'project')).code).toBe(0);
  });
});

describe('remember --at', () => {
  it('a time that is no date is a usage error naming --at, not an error about occurredAt, and writes nothing', async () => {
    const run = await cli('remember', 'Ben goes climbing on Saturdays', '--type', 'user', '--at', 'yesterday');
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      `error [USAGE]: option '--at <when>' argument 'yesterday' is invalid. Expected an ISO 8601 date or date-time such as 2023-05-08 or 2023-05-08T13:56:00Z, got "yesterday". (see agentmem remember --help)\n`,
    );
    expect(existsSync(store.db)).toBe(false);
  });

  it('takes what the store takes: a date, a date-time with an offset', async () => {
    const day = await cli(
      'remember',
      'Ben goes climbing on Saturdays',
      '--type',
      'user',
      '--at',
      '2023-05-08',
      '--json',
    );
    expect(day.json().memory.occurredAt).toBe('2023-05-08T00:00:00.000Z');
    const offset = await cli(
      'remember',
      'Ana moved to Lisbon',
      '--type',
      'user',
      '--at',
      '2023-05-08T15:56:00+02:00',
      '--json',
    );
    expect(offset.json().memory.occurredAt).toBe('2023-05-08T13:56:00.000Z');
  });
});

describe('not found and invalid input name the fix', () => {
  it('skills list on no store names skills load among the commands that create one', async () => {
    const run = await cli('skills', 'list');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('error [NOT_FOUND]: No memory database at');
    expect(run.stderr).toContain('`agentmem skills load DIR`');
  });

  it('history of an unknown id says where ids come from', async () => {
    await cli('remember', 'Orders live in PostgreSQL 16', '--type', 'project');
    const run = await cli('history', 'mem_nope');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('error [NOT_FOUND]: No memory or history with id mem_nope');
    expect(run.stderr).toContain('agentmem recall');
  });

  it('an import line without "type" says the key is missing, not that the type "undefined" is unknown', async () => {
    const file = store.tmp.path('notes.jsonl');
    writeFileSync(file, '{"content":"Orders live in PostgreSQL 16"}\n{"content":"x","type":"fact"}\n');
    const run = await cli('import', file);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'line 1: "type" is missing: add "type" with one of user, feedback, project, reference.',
    );
    expect(run.stderr).not.toContain('undefined');
    // A type that is there but wrong still shows the value given.
    expect(run.stderr).toContain('line 2: Unknown memory type "fact"');
    const json = await cli('import', file, '--json');
    expect(JSON.parse(json.stderr).error.details.errors[0]).toMatchObject({ line: 1, field: 'type' });
    expect(existsSync(store.db)).toBe(false);
  });
});

describe('eval', () => {
  it('given a file of memories (an export) instead of cases, says what a case file holds and names import', async () => {
    await cli('remember', 'Orders live in PostgreSQL 16', '--type', 'project');
    const file = store.tmp.path('memories.jsonl');
    expect((await cli('export', '--out', file)).code).toBe(0);
    const run = await cli('eval', file);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`error [INVALID_INPUT]: ${file} holds memories`);
    expect(run.stderr).toContain('{"question": "where are orders stored?", "expect": ["m1"]}');
    expect(run.stderr).toContain(`agentmem import ${file}`);
    // --json keeps every line's problem.
    const json = await cli('eval', file, '--json');
    expect(JSON.parse(json.stderr).error.details.errors).toHaveLength(1);
  });

  it('a case file with a mistake keeps its own message', async () => {
    const file = store.tmp.path('cases.jsonl');
    writeFileSync(file, '{"memory":"Orders live in PostgreSQL 16","id":"m1"}\n{"questoin":"where?"}\n');
    const run = await cli('eval', file);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('Did you mean "question"?');
    expect(run.stderr).not.toContain('holds memories');
  });
});

describe('help', () => {
  it('demo --help says the tour runs on a temporary file unless --db names a new one', async () => {
    const run = await runCli(['demo', '--help']);
    expect(run.code).toBe(0);
    expect(run.stdout.replace(/\s+/g, ' ')).toContain(
      'a guided tour on a temporary store, removed afterwards (--db NEW_PATH keeps it)',
    );
  });
});

describe('a misspelled branch name', () => {
  it('branch diff, merge and delete name the closest branch with memories on stderr, and still do as asked', async () => {
    await cli('--branch', 'feature/auth', 'remember', 'Auth uses JWT', '-t', 'project');
    await cli('remember', 'Orders live in PostgreSQL 16', '-t', 'project');
    const hint = (typed: string, meant: string) =>
      `hint: branch ${typed} has no memories; did you mean ${meant}? (\`agentmem branch list\` names them)\n`;
    const diff = await cli('branch', 'diff', 'feture/auth');
    expect(diff.code).toBe(0);
    expect(diff.stdout).toContain('New: 0 memories');
    expect(diff.stderr).toBe(hint('feture/auth', 'feature/auth'));
    const merge = await cli('-y', 'branch', 'merge', 'feature/auth', '--into', 'mian');
    expect(merge.stderr).toBe(hint('mian', 'main'));
    expect(merge.stdout).toContain('Imported: 1 new memory'); // a new branch is a valid target: the merge happened
    expect((await cli('--json', 'branch', 'delete', 'feture/auth')).stderr).toBe(hint('feture/auth', 'feature/auth'));
    // Right names, or a name close to none, get no hint.
    expect((await cli('branch', 'diff', 'feature/auth')).stderr).toBe('');
    expect((await cli('branch', 'diff', 'release/2.0')).stderr).toBe('');
  });
});

describe('nothing found in this scope', () => {
  it('recall and stats say which other tenants and branches hold memories, and say nothing when none do', async () => {
    await cli('remember', 'Orders live in PostgreSQL 16', '-t', 'project');
    expect((await cli('recall', 'kubernetes')).stderr).toBe(''); // no match, and no other scope holds any
    await cli('--tenant', 'alice', 'remember', 'Alice prefers dark mode', '-t', 'user');
    await cli('--tenant', 'alice', 'remember', 'Alice works in Lisbon', '-t', 'user');
    await cli('--branch', 'feature/auth', 'remember', 'Auth uses JWT', '-t', 'project');
    const recall = await cli('recall', 'dark mode');
    expect(recall.stdout).toContain('No memories match "dark mode".');
    expect(recall.stderr).toBe(
      'hint: other scopes of this store hold memories: 2 memories with --tenant alice, 1 memory with --branch feature/auth.\n',
    );
    const stats = await cli('--tenant', 'bob', '--json', 'stats');
    expect(stats.json().total).toBe(0);
    expect(stats.stderr).toBe(
      'hint: other scopes of this store hold memories: 2 memories in the default tenant (no --tenant), 2 memories with --tenant alice.\n',
    );
    // Found something, or nothing anywhere else: no hint.
    expect((await cli('--tenant', 'alice', 'recall', 'dark mode')).stderr).toBe('');
    expect((await cli('--branch', 'feature/auth', 'stats')).stderr).toBe('');
  });
});

describe('values of enum flags', () => {
  it('take hyphens or underscores alike; a wrong one lists the values, and help lists them too', async () => {
    await cli('remember', 'Deploys happen on Tuesdays', '-t', 'project');
    const both = await cli(
      '--json',
      'remember',
      'Deploys happen on Wednesdays',
      '-t',
      'project',
      '--on-conflict',
      'keep_both',
    );
    expect(both.code).toBe(0);
    expect(both.json().conflicts).toHaveLength(1);
    expect((await cli('--json', 'stats')).json().total).toBe(2); // kept both, as keep-both does (supersede keeps 1)
    await cli('--branch', 'feature/auth', 'remember', 'Auth uses JWT', '-t', 'project');
    expect((await cli('-y', 'branch', 'merge', 'feature/auth', '--strategy', 'newer-wins')).code).toBe(0);
    const wrong = await cli('remember', 'x', '-t', 'project', '--on-conflict', 'replace');
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('Allowed choices are supersede, keep-both, keep-existing.');
    const strategy = await cli('branch', 'merge', 'feature/auth', '--strategy', 'mine');
    expect(strategy.stderr).toContain('Allowed choices are local_wins, remote_wins, newer_wins, keep_both.');
    expect((await runCli(['remember', '--help'])).stdout).toMatch(
      /--on-conflict <resolution>\s+when a similar memory says something else\s+\(choices: "supersede", "keep-both",\s+"keep-existing", default: "supersede"\)/,
    );
  });
});
