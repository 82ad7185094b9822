import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, useFreshStore } from './run-cli';

const store = useFreshStore();

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
