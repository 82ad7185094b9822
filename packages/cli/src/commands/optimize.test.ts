import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli as run, tempDir } from '../../../../test/cli/run-cli';
import { progressLine } from './optimize';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

/** Changes logged since the indexes' saves. */
function logged(path: string): { keyword: number; dense: number } {
  const db = new Database(path, { readonly: true });
  try {
    return {
      keyword: db.prepare('SELECT count(*) FROM keyword_changes').pluck().get() as number,
      dense: db.prepare('SELECT count(*) FROM dense_changes').pluck().get() as number,
    };
  } finally {
    db.close();
  }
}

describe('agentmem optimize', () => {
  it('saves what remember left logged, prints what it did, and a second run finds it current', async () => {
    const db = tmp.path('memory.db');
    for (const content of ['The deploy runs on Fridays.', 'Dana reviews the API changes.', 'Backups go to the NAS.'])
      expect((await run(['--db', db, '--branch', 'main', 'remember', content, '--type', 'project'])).code).toBe(0);
    // Each remember's few writes stay logged (a save waits for 1,000): every later process catches up.
    expect(logged(db)).toEqual({ keyword: expect.any(Number), dense: 2 });
    expect(logged(db).keyword).toBeGreaterThan(0);
    const human = await run(['--db', db, 'optimize']);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toContain('Saved:    sparse, keyword');
    expect(human.stdout).toContain('Log:      checkpointed into the file');
    // Progress goes to stderr, a line a step, as it goes.
    expect(human.stderr.split('\n').map((line) => line.replace(/ \(\d+\.\d s\)$/, ''))).toEqual([
      'optimize: saving the dense index',
      'optimize: saving the keyword index',
      'optimize: checkpointing the log',
      '',
    ]);
    expect(logged(db)).toEqual({ keyword: 0, dense: 0 });

    const again = await run(['--db', db, 'optimize', '--json', '--vacuum']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toBe(''); // --json: no progress
    expect(JSON.parse(again.stdout)).toMatchObject({
      path: db,
      optimized: true,
      slicesBuilt: 0,
      indexesSaved: [],
      indexesCurrent: ['sparse', 'keyword'],
      vacuumed: true,
    });
    const recall = await run(['--db', db, '--branch', 'main', 'recall', 'deploy Fridays', '--json']);
    expect(recall.stdout).toContain('The deploy runs on Fridays.');
  });

  it('shows each slice of a build with the vectors done of all', () => {
    expect(
      progressLine({ step: 'slice', slicesBuilt: 3, vectorsBuilt: 196_608, vectorsTotal: 1_000_000, ms: 12_345 }),
    ).toBe('optimize: built slice 3 of the sparse index: 196,608 of 1,000,000 vectors (12.3 s)');
  });

  it('refuses a missing store (creates none) and lists --vacuum in its help', async () => {
    const missing = join(tmp.dir, 'none', 'memory.db');
    const refused = await run(['--db', missing, 'optimize']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/No memory database at/);
    const help = await run(['optimize', '--help']);
    expect(help.stdout).toContain('--vacuum');
    expect(help.stdout).toContain('progress');
  });
});
