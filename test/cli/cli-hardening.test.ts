import { readFileSync, statSync, writeFileSync } from 'node:fs';
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
