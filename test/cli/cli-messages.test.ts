import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli, useFreshStore } from './run-cli';

// Messages a new user met that spoke of the library's API ({ into }, { reembed: true },
// listMerges(), history(id), @agentmem/sqlite) instead of the command line's flags and commands.
const store = useFreshStore();
const cli = store.cli;

describe('library errors name the CLI flag or command', () => {
  it('branch diff of the current branch without --into names --into <branch>', async () => {
    await cli('remember', 'Orders live in PostgreSQL 16', '--type', 'project');
    const run = await cli('branch', 'diff', 'main');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('Cannot merge branch main into itself');
    expect(run.stderr).toContain('--into <branch>');
    expect(run.stderr).not.toContain('{ into');
  });

  it('a store built with another embedder names the --embedder id it records and merge --reembed', async () => {
    const built = await runCli(['--db', store.db, '--embedder', 'hashing:128', 'remember', 'x y', '--type', 'user']);
    expect(built.code, built.stderr).toBe(0);
    const run = await cli('stats');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('error [EMBEDDER_MISMATCH]');
    expect(run.stderr).toContain('--embedder agentmem/hashing-v1:128');
    expect(run.stderr).toContain('--reembed');
    expect(run.stderr).not.toContain('{ reembed');
    // The id is accepted as is.
    expect((await cli('--embedder', 'agentmem/hashing-v1:128', 'stats')).code).toBe(0);
  });

  it('merge and diff of a snapshot built with another embedder name merge --reembed', async () => {
    const other = store.tmp.path('other.db');
    const snap = store.tmp.path('other.agentmem');
    const opts = ['--db', other, '--embedder', 'hashing:128', '--branch', 'main'];
    expect((await runCli([...opts, 'remember', 'x y', '--type', 'user'])).code).toBe(0);
    expect((await runCli([...opts, 'snapshot', snap])).code).toBe(0);
    await cli('remember', 'Orders live in PostgreSQL 16', '--type', 'project');

    const diff = await cli('diff', snap);
    expect(diff.code, diff.stderr).toBe(0);
    expect(diff.stdout).toContain(`agentmem merge ${snap} --reembed`);
    expect(diff.stdout).not.toContain('merge with reembed');

    const merge = await cli('merge', snap, '--yes');
    expect(merge.code).toBe(1);
    expect(merge.stderr).toContain('error [EMBEDDER_MISMATCH]');
    expect(merge.stderr).toContain(`agentmem merge ${snap} --reembed`);
    expect(merge.stderr).not.toContain('{ reembed');
  });

  it('a directory or a text file as --db names --db, not @agentmem/sqlite', async () => {
    const dir = store.tmp.path('a-dir');
    mkdirSync(dir);
    const text = store.tmp.path('notes.txt');
    writeFileSync(text, 'hello\n');
    for (const db of [dir, text]) {
      const run = await runCli(['--db', db, 'stats']);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('error [NOT_A_DATABASE]');
      expect(run.stderr).toContain(`--db ${db}`);
      expect(run.stderr).toContain('Give --db an agentmem database file');
      expect(run.stderr).not.toContain('@agentmem/sqlite');
    }
  });

  it('undo-merge of an unknown id names agentmem merges', async () => {
    await cli('remember', 'Orders live in PostgreSQL 16', '--type', 'project');
    const run = await cli('undo-merge', 'nope');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('No merge with id nope');
    expect(run.stderr).toContain('`agentmem merges`');
    expect(run.stderr).not.toContain('listMerges()');
  });

  it('restore of an unknown id names agentmem history <id>', async () => {
    await cli('remember', 'Orders live in PostgreSQL 16', '--type', 'project');
    const run = await cli('restore', 'nope');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('`agentmem history nope`');
    expect(run.stderr).not.toContain('history(id)');
  });

  it('--json errors carry the translated message and keep the details', async () => {
    await cli('remember', 'Orders live in PostgreSQL 16', '--type', 'project');
    const run = await cli('undo-merge', 'nope', '--json');
    expect(run.stderr).not.toContain('listMerges');
    expect(JSON.parse(run.stderr)).toEqual({
      error: { code: 'NOT_FOUND', message: expect.stringContaining('agentmem merges'), details: { mergeId: 'nope' } },
    });
  });
});

describe('recall of an empty query', () => {
  it('is a usage error that shows how to give a query', async () => {
    await cli('remember', 'Orders live in PostgreSQL 16', '--type', 'project');
    for (const query of ['', '   ']) {
      const run = await cli('recall', query);
      expect(run.code).toBe(2);
      expect(run.stderr).toBe('error [USAGE]: Give a query: agentmem recall "what to look for".\n');
    }
  });
});

describe('snapshot to an existing directory', () => {
  it('says it is a directory, with or without --force', async () => {
    await cli('remember', 'Orders live in PostgreSQL 16', '--type', 'project');
    const dir = store.tmp.path('out');
    mkdirSync(dir);
    for (const argv of [
      ['snapshot', dir],
      ['snapshot', dir, '--force'],
    ]) {
      const run = await cli(...argv);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`${dir} is a directory; give a file path`);
      expect(run.stderr).not.toContain('--force');
    }
  });
});

describe('merge of a file that is not a snapshot', () => {
  it('an agentmem store: says to snapshot it with agentmem --db <file> snapshot and merge that', async () => {
    const other = store.tmp.path('other.db');
    expect((await runCli(['--db', other, 'remember', 'x y', '--type', 'user'])).code).toBe(0);
    await cli('remember', 'Orders live in PostgreSQL 16', '--type', 'project');
    for (const command of ['merge', 'diff']) {
      const run = await cli(command, other, '--yes');
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('error [CORRUPT_SNAPSHOT]');
      expect(run.stderr).toContain(`${other} is an agentmem store, not a snapshot`);
      expect(run.stderr).toContain(`agentmem --db ${other} snapshot <out>`);
      expect(run.stderr).not.toContain('ask for a new snapshot');
    }
  });

  it('a JSONL file: points to agentmem import', async () => {
    const file = store.tmp.path('memories.jsonl');
    writeFileSync(file, `  ${JSON.stringify({ content: 'Orders live in PostgreSQL 16', type: 'project' })}\n`);
    const run = await cli('merge', file, '--yes');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('error [NOT_A_SNAPSHOT]');
    expect(run.stderr).toContain(`agentmem import ${file}`);
    expect(run.stderr).not.toContain('ask for a new snapshot');
  });

  it('another file keeps the library message', async () => {
    const file = store.tmp.path('notes.txt');
    writeFileSync(file, 'hello\n');
    const run = await cli('merge', file, '--yes');
    expect(run.stderr).toContain('error [NOT_A_SNAPSHOT]');
    expect(run.stderr).not.toContain('agentmem import');
  });
});

describe('skills load of one file that is not a skill', () => {
  it('is an error (exit 1) naming the formats a skill file can be, not "Loaded 0 skills", and creates no store', async () => {
    const sqlite = store.tmp.path('other.db');
    expect((await runCli(['--db', sqlite, 'remember', 'x y', '--type', 'user'])).code).toBe(0);
    const big = store.tmp.path('big.bin');
    const bytes = Buffer.alloc(500_000, 0x41);
    bytes[100] = 0;
    writeFileSync(big, bytes);
    for (const file of [sqlite, big]) {
      const run = await cli('skills', 'load', file);
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toContain(`error [INVALID_INPUT]: ${file} is not a skill: it is not a text file`);
      expect(run.stderr).toContain('<name>/SKILL.md');
      expect(run.stderr).toContain('.cursor/rules/**/*.mdc');
      expect(run.stderr).not.toContain('Split it');
    }
    expect(existsSync(store.db)).toBe(false);
  });

  it('with --json: the error and its problems on stderr', async () => {
    const file = store.tmp.path('bad.md');
    writeFileSync(file, 'text\u0000more');
    const run = await cli('skills', 'load', file, '--json');
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stderr).error).toMatchObject({
      code: 'INVALID_INPUT',
      details: { path: file, problems: [{ severity: 'error' }] },
    });
  });
});

describe('recall --include-superseded', () => {
  it('marks each row active or superseded; --json keeps its shape (the memory carries supersededBy)', async () => {
    const old = (await cli('remember', 'Orders live in PostgreSQL 14', '--type', 'project', '--json')).json().memory.id;
    const now = (await cli('remember', 'Orders live in PostgreSQL 16', '--type', 'project', '--json')).json().memory.id;
    const run = await cli('recall', 'PostgreSQL', '--include-superseded');
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.split('\n');
    expect(lines[0]).toMatch(/^ID\s+TYPE\s+STATUS\s+SCORE/);
    expect(lines.find((l) => l.startsWith(old))).toMatch(/\ssuperseded\s/);
    expect(lines.find((l) => l.startsWith(now))).toMatch(/\sactive\s/);

    const json = (await cli('recall', 'PostgreSQL', '--include-superseded', '--json')).json();
    expect(Object.keys(json.results[0]).sort()).toEqual(
      ['content', 'id', 'memory', 'relevance', 'score', 'signals', 'type'].sort(),
    );
    expect(json.results.find((r: { id: string }) => r.id === old).memory.supersededBy).toBe(now);
  });

  it('without the flag the table has no status column', async () => {
    await cli('remember', 'Orders live in PostgreSQL 16', '--type', 'project');
    expect((await cli('recall', 'PostgreSQL')).stdout).toMatch(/^ID\s+TYPE\s+SCORE/);
  });
});

describe('--json with no command', () => {
  it('prints a JSON usage error on stderr (exit 2), not the help text', async () => {
    for (const argv of [['--json'], ['skills', '--json'], ['--json', 'branch']]) {
      const run = await runCli(argv);
      expect(run.code).toBe(2);
      expect(run.stdout).toBe('');
      expect(JSON.parse(run.stderr)).toEqual({
        error: { code: 'USAGE', message: expect.stringContaining('No command given') },
      });
    }
  });

  it('without --json, the help text on stderr as before (exit 2)', async () => {
    const run = await runCli([]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^Usage: agentmem/);
  });
});
