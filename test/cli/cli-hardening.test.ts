import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runCli, useFreshStore } from './run-cli';

const store = useFreshStore();

/** A folder with one agentmem skill (docker), for the commands that load skills. */
function writeDockerSkill(): string {
  const dir = store.tmp.path('skills');
  mkdirSync(dir);
  writeFileSync(
    join(dir, 'docker.md'),
    '---\nname: docker\ndescription: Dockerfile rules\nkeywords: [docker]\n---\nPin base images.\n',
  );
  return dir;
}

describe('demo --db', () => {
  it('refuses an existing store, changing nothing, and runs on a new path', async () => {
    for (const fact of ['Orders live in PostgreSQL 16', 'Deploys go out on Tuesdays', 'The API speaks GraphQL'])
      await store.cli('remember', fact, '--type', 'project');
    const before = readFileSync(store.db);
    const mtime = statSync(store.db).mtimeMs;
    const run = await runCli(['--db', store.db, 'demo']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^error \[USAGE\]: .*memory\.db already exists; .*Pick a new path for --db/);
    expect(run.stdout).toBe('');
    expect(readFileSync(store.db).equals(before)).toBe(true);
    expect(statSync(store.db).mtimeMs).toBe(mtime);
    expect((await store.cli('stats', '--json')).json().total).toBe(3);

    const fresh = store.tmp.path('new.db');
    const demo = await runCli(['--db', fresh, 'demo', '--json']);
    expect(demo.code, demo.stderr).toBe(0);
    expect(demo.json()).toMatchObject({ store: fresh, kept: true });
  });

  it('takes an empty file as a new store', async () => {
    const empty = store.tmp.path('empty.db');
    writeFileSync(empty, '');
    const demo = await runCli(['--db', empty, 'demo', '--json']);
    expect(demo.code, demo.stderr).toBe(0);
  });
});

describe('export --out and snapshot: a bad path', () => {
  it('export --out a directory: a clear error, and no partial file left', async () => {
    await store.cli('remember', 'Orders live in PostgreSQL 16', '--type', 'project');
    const dir = store.tmp.path('out');
    mkdirSync(dir);
    const run = await store.cli('export', '--out', dir);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `error [INVALID_INPUT]: --out ${dir} is a directory; give a file path, e.g. --out ${join(dir, 'memories.jsonl')}.\n`,
    );
    expect(readdirSync(store.tmp.dir).filter((name) => name.includes('partial'))).toEqual([]);
  });

  it('export --out and snapshot under a file name the path instead of EEXIST from mkdir', async () => {
    await store.cli('remember', 'Orders live in PostgreSQL 16', '--type', 'project');
    writeFileSync(store.tmp.path('a'), 'a file');
    const out = join(store.tmp.path('a'), 'x.jsonl');
    const exported = await store.cli('export', '--out', out);
    expect(exported.code).toBe(1);
    expect(exported.stderr).toMatch(
      /^error \[INVALID_INPUT\]: Cannot write --out .*x\.jsonl: a file, not a directory, is in the way on its path\./,
    );
    const snap = join(store.tmp.path('a'), 'x.snap');
    const snapshot = await store.cli('snapshot', snap);
    expect(snapshot.code).toBe(1);
    expect(snapshot.stderr).toMatch(
      /^error \[INVALID_INPUT\]: Cannot create .*x\.snap: a file, not a directory, is in the way on its path\./,
    );
  });
});

describe('merge --yes with nothing to merge', () => {
  it('prints "Nothing to merge." and records nothing, so undo-merge --last undoes the real merge', async () => {
    await store.cli('remember', 'Orders live in PostgreSQL 16', '--type', 'project');
    const snap = store.tmp.path('other.snap');
    const other = (...argv: string[]) => runCli(['--db', snap, '--branch', 'main', ...argv]);
    await store.cli('snapshot', snap);
    await other('remember', 'Deploys go out on Tuesdays', '--type', 'project');
    expect((await store.cli('merge', snap, '--yes')).code).toBe(0);
    const [real] = (await store.cli('merges', '--json')).json();

    const again = await store.cli('merge', snap, '--yes');
    expect(again.code).toBe(0);
    expect(again.stdout).toBe('Nothing to merge.\n');
    const filtered = await store.cli('merge', snap, '--yes', '--namespaces', 'nothing-here', '--json');
    expect(filtered.json()).toMatchObject({ merged: false });
    await store.cli('--branch', 'feature/x', 'remember', 'Auth uses PKCE', '--type', 'project');
    expect((await store.cli('branch', 'merge', 'feature/x', '--yes')).code).toBe(0);
    const [branchMerge] = (await store.cli('merges', '--json')).json();
    for (const source of ['feature/x', 'feature/typo']) {
      const branch = await store.cli('branch', 'merge', source, '--yes');
      expect(branch.stdout).toBe('Nothing to merge.\n');
    }

    const merges = (await store.cli('merges', '--json')).json();
    expect(merges.map((m: { id: string }) => m.id)).toEqual([branchMerge.id, real.id]);
    const undo = await store.cli('undo-merge', '--last', '--yes', '--json');
    expect(undo.json()).toMatchObject({ mergeId: branchMerge.id, removed: 1 });
  });
});

describe('option values the CLI can check are usage errors (exit 2) about the flag', () => {
  afterEach(() => vi.unstubAllEnvs());

  it('decay --now takes ISO 8601 or epoch milliseconds, as its message says, and refuses anything else', async () => {
    await store.cli('remember', 'Orders live in PostgreSQL 16', '--type', 'project');
    const epoch = await store.cli('decay', '--now', '1800000000000', '--dry-run', '--json');
    expect(epoch.code, epoch.stderr).toBe(0);
    expect(epoch.json().now).toBe(new Date(1800000000000).toISOString());
    const day = await store.cli('decay', '--now', '2027-01-15', '--dry-run', '--json');
    expect(day.json().now).toBe('2027-01-15T00:00:00.000Z');
    for (const bad of ['yesterday', 'March 1 2027', '2027-13-45']) {
      const run = await store.cli('decay', '--now', bad);
      expect(run.code, bad).toBe(2);
      expect(run.stderr).toMatch(/^error \[USAGE\]: option '--now <when>' argument .* is invalid\. Expected ISO 8601/);
    }
    expect((await store.cli('stats', '--json')).json()).toMatchObject({ total: 1, inactive: 0 });
  });

  it('--embedder (or AGENTMEM_EMBEDDER) that names no embedder', async () => {
    for (const bad of ['bogus', 'hashing:0', 'hashing:', 'cohere:']) {
      const run = await store.cli('--embedder', bad, 'stats');
      expect(run.code, bad).toBe(2);
      expect(run.stderr).toMatch(/^error \[USAGE\]: option '--embedder <id>' argument .* is invalid\./);
    }
    expect((await store.cli('--embedder', 'hashing:0', 'stats')).stderr).toContain('from 16 to 65536');
    vi.stubEnv('AGENTMEM_EMBEDDER', 'bogus');
    const env = await store.cli('stats', '--json');
    expect(env.code).toBe(2);
    expect(JSON.parse(env.stderr).error.message).toMatch(/from env 'AGENTMEM_EMBEDDER' is invalid\. Use `hashing`/);
  });
});

describe('--json errors carry details', () => {
  it('import of a file with six bad lines: the text names three and how to see all, --json lists every line', async () => {
    const bad = store.tmp.path('bad.jsonl');
    writeFileSync(
      bad,
      [
        '{"content":"ok","type":"user"}',
        'not json',
        '{"type":"user"}',
        '{"content":"x","type":"nope"}',
        '[]',
        '{"content":"y","type":"user","importance":2}',
        'also bad',
      ].join('\n'),
    );
    const text = await store.cli('import', bad);
    expect(text.code).toBe(1);
    expect(text.stderr).toMatch(
      /has 6 invalid lines \(line 2: .*; line 3: .*; line 4: .*; and 3 more; --json lists every line\)/,
    );
    const json = await store.cli('import', bad, '--json');
    expect(json.code).toBe(1);
    const { error } = JSON.parse(json.stderr);
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.details.errors.map((e: { line: number }) => e.line)).toEqual([2, 3, 4, 5, 6, 7]);
    expect(error.details.errors[4]).toEqual({
      line: 6,
      message: 'Importance must be a number from 0 to 1, got 2.',
      field: 'importance',
      rule: 'range',
    });
  });

  it('a missing store names its path in details (recall as the example: every command reports through one path)', async () => {
    const run = await runCli(['--db', store.tmp.path('missing.db'), 'recall', 'x', '--json']);
    expect(JSON.parse(run.stderr)).toEqual({
      error: { code: 'NOT_FOUND', message: expect.any(String), details: { path: store.tmp.path('missing.db') } },
    });
  });
});

describe('failed commands create no store', () => {
  it('merge of a bad or missing snapshot and skills load of a missing directory leave a new --db uncreated', async () => {
    const bad = store.tmp.path('bad.snap');
    writeFileSync(bad, 'not a snapshot');
    const merged = await store.cli('merge', bad, '--yes');
    expect(merged.code).toBe(1);
    expect(merged.stderr).toMatch(/^error \[NOT_A_SNAPSHOT\]: .*bad\.snap is not a usable agentmem snapshot/);
    expect((await store.cli('merge', store.tmp.path('missing.snap'), '--yes')).stderr).toMatch(/^error \[NOT_FOUND\]/);
    const skills = await store.cli('skills', 'load', store.tmp.path('no-such-dir'));
    expect(skills.code).toBe(1);
    expect(skills.stderr).toMatch(
      /^error \[NOT_FOUND\]: No skills directory or file at .*no-such-dir\. Check the path\./,
    );
    expect(existsSync(store.db)).toBe(false);
  });

  it('read-only commands on an empty file say there is no store and leave it empty', async () => {
    writeFileSync(store.db, '');
    for (const argv of [
      ['stats'],
      ['recall', 'x'],
      ['skills', 'list'],
      ['branch', 'list'],
      ['branch', 'switch', 'dev'],
      ['merges'],
    ]) {
      const run = await store.cli(...argv);
      expect(run.code, argv.join(' ')).toBe(1);
      expect(run.stderr).toMatch(/^error \[NOT_FOUND\]: No memory database at .*memory\.db \(an empty file\)\./);
    }
    expect(statSync(store.db).size).toBe(0);
  });

  it('commands meant to create a store still do, on a new path and on an empty file', async () => {
    const dir = writeDockerSkill();
    expect((await store.cli('skills', 'load', dir)).code).toBe(0);
    expect((await store.cli('skills', 'list', '--json')).json().skills).toHaveLength(1);
    const empty = store.tmp.path('empty.db');
    writeFileSync(empty, '');
    expect((await runCli(['--db', empty, 'remember', 'Deploys go out on Tuesdays', '--type', 'project'])).code).toBe(0);
    expect((await runCli(['--db', empty, 'stats', '--json'])).json().total).toBe(1);
  });
});

describe('import', () => {
  it('reads a JSONL file that starts with a UTF-8 BOM', async () => {
    const file = store.tmp.path('bom.jsonl');
    writeFileSync(file, '\uFEFF{"content":"Deploys go out on Tuesdays","type":"project"}\n');
    const run = await store.cli('import', file, '--json');
    expect(run.code, run.stderr).toBe(0);
    expect(run.json()).toMatchObject({ total: 1, imported: 1 });
  });
});

describe('messages that say what is wrong', () => {
  it('skills remove of an unknown name is a NOT_FOUND error like any other, also with --json', async () => {
    await store.cli('remember', 'Orders live in PostgreSQL 16', '--type', 'project');
    const text = await store.cli('skills', 'remove', 'nope');
    expect(text).toMatchObject({ code: 1, stdout: '' });
    expect(text.stderr).toMatch(/^error \[NOT_FOUND\]: No skill named "nope"; nothing was removed\./);
    const json = await store.cli('skills', 'remove', 'nope', '--json');
    expect(json).toMatchObject({ code: 1, stdout: '' });
    expect(JSON.parse(json.stderr).error).toMatchObject({ code: 'NOT_FOUND', details: { name: 'nope' } });
  });

  it('skills remove declined on a terminal is ABORTED, as other confirmations', async () => {
    const dir = writeDockerSkill();
    await store.cli('skills', 'load', dir);
    const declined = await runCli(['--db', store.db, 'skills', 'remove', 'docker'], { isTTY: true, stdin: 'n\n' });
    expect(declined.code).toBe(1);
    expect(declined.stderr).toMatch(/error \[ABORTED\]: Not confirmed; nothing was changed\.\n$/);
    expect((await store.cli('skills', 'list', '--json')).json().skills).toHaveLength(1);
  });

  it('import of a directory or a missing file says what is wrong with the path', async () => {
    const dir = store.tmp.path('dir');
    mkdirSync(dir);
    const isDir = await store.cli('import', dir);
    expect(isDir.code).toBe(1);
    expect(isDir.stderr).toBe(
      `error [INVALID_INPUT]: ${dir} is a directory; give a JSONL file (as written by agentmem export), or - for stdin.\n`,
    );
    const missing = await store.cli('import', store.tmp.path('nope.jsonl'));
    expect(missing.stderr).toBe(
      `error [NOT_FOUND]: No file at ${store.tmp.path('nope.jsonl')}. Check the path, or pass - to read stdin.\n`,
    );
    expect(existsSync(store.db)).toBe(false);
  });

  it('undo-merge --last with nothing to undo gives one hint, not two, and exits 1 as an undone or unknown id does', async () => {
    await store.cli('remember', 'Orders live in PostgreSQL 16', '--type', 'project');
    const run = await store.cli('undo-merge', '--last');
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('error [NOT_FOUND]: No merge to undo: this store has no merges (see `agentmem merges`).\n');
    expect((await store.cli('undo-merge', 'merge_unknown')).code).toBe(1);
  });
});
