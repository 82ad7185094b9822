import { describe, expect, it } from 'vitest';
import { runCli, useFreshStore } from './run-cli';

const store = useFreshStore();
const cli = store.cli;

const weeksFromNow = (weeks: number) => new Date(Date.now() + weeks * 7 * 24 * 3_600_000).toISOString();

describe('remember --on-conflict', () => {
  it('supersedes a conflicting memory by default; recall then returns only the new fact', async () => {
    const old = (await cli('remember', 'The database is PostgreSQL 14', '--type', 'project', '--json')).json();
    const run = await cli('remember', 'The database is PostgreSQL 16', '--type', 'project');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('Conflicts with 1 similar memory');
    expect(run.stdout).toContain(`Superseded ${old.memory.id}`);
    const recall = (await cli('recall', 'database PostgreSQL', '--json')).json();
    expect(recall.results.map((r: { content: string }) => r.content)).toEqual(['The database is PostgreSQL 16']);
  });

  it('keep-existing writes nothing; keep-both keeps both; --json reports the conflicts', async () => {
    await cli('remember', 'The database is PostgreSQL 14', '--type', 'project');
    const kept = (
      await cli(
        'remember',
        'The database is PostgreSQL 16',
        '--type',
        'project',
        '--on-conflict',
        'keep-existing',
        '--json',
      )
    ).json();
    expect(kept).toMatchObject({ created: false, resolution: 'keep_existing', superseded: [] });
    expect(kept.memory).toBeUndefined();
    expect(kept.conflicts).toMatchObject([{ content: 'The database is PostgreSQL 14' }]);
    const both = (
      await cli(
        'remember',
        'The database is PostgreSQL 16',
        '--type',
        'project',
        '--on-conflict',
        'keep-both',
        '--json',
      )
    ).json();
    expect(both).toMatchObject({ created: true, resolution: 'keep_both', superseded: [] });
    expect((await cli('stats', '--json')).json().total).toBe(2);
  });

  it('rejects an unknown resolution as a usage error', async () => {
    const run = await cli('remember', 'x', '--type', 'user', '--on-conflict', 'overwrite');
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/supersede, keep-both, keep-existing/);
  });
});

describe('decay, restore, compact', () => {
  it('prunes weeks later, restores one, compacts the rest after confirmation', async () => {
    const a = (await cli('remember', 'The release branch is cut on Mondays', '--type', 'project', '--json')).json()
      .memory.id;
    const b = (await cli('remember', 'Dana likes dark mode', '--type', 'user', '--importance', '0.9', '--json')).json()
      .memory.id;
    const later = weeksFromNow(6); // 0.5 and 0.9 halve six times: 0.008 and 0.014, both below 0.05

    const dry = await cli('decay', '--now', later, '--dry-run', '--json');
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.json()).toMatchObject({ scanned: 2, pruned: 2, dryRun: true, now: later });
    expect((await cli('stats', '--json')).json().total).toBe(2);

    const human = await cli('decay', '--now', later);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/pruned\s+2/);
    expect((await cli('stats', '--json')).json()).toMatchObject({ total: 0, inactive: 2 });
    expect((await cli('recall', 'release branch Mondays', '--json')).json().results).toEqual([]);

    const restored = await cli('restore', a, '--json');
    expect(restored.json()).toMatchObject({ restored: true, was: 'pruned', memory: { id: a } });
    expect((await cli('recall', 'release branch Mondays', '--json')).json().results[0].id).toBe(a);

    const refused = await cli('compact');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('--yes');
    const compacted = await cli('compact', '--yes', '--json');
    expect(compacted.json()).toMatchObject({ removed: 1, dryRun: false });
    const history = (await cli('history', b, '--json')).json();
    expect(history.entries.map((e: { action: string }) => e.action)).toEqual(['create', 'prune', 'compact']);
    expect((await cli('restore', b)).code).toBe(1);
    expect((await cli('stats', '--json')).json()).toMatchObject({ total: 1, inactive: 0 });
  });

  it('rejects a bad --now as a usage error and writes nothing', async () => {
    await cli('remember', 'A fact', '--type', 'user');
    const run = await cli('decay', '--now', 'next week');
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/ISO 8601/);
    expect((await cli('stats', '--json')).json().total).toBe(1);
  });
});

describe('demo: conflicts and decay sections', () => {
  it('supersedes the changed database fact and prunes the less important memories weeks later', async () => {
    const run = await runCli(['demo', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const { conflicts, decay } = run.json();
    expect(conflicts.writes.map((w: { conflicts: unknown[] }) => w.conflicts.length)).toEqual([0, 1, 0]);
    expect(conflicts.writes[1]).toMatchObject({ stored: true, resolution: 'supersede' });
    expect(conflicts.recall.results[0]).toBe('The database is PostgreSQL 16');
    expect(conflicts.recall.results).not.toContain('The database is PostgreSQL 14');
    expect(conflicts.history).toEqual(['create', 'supersede']);
    expect(decay.preview.pruned).toBe(decay.run.pruned);
    expect(decay.run.pruned).toBeGreaterThan(0);
    expect(decay.kept.length).toBeGreaterThan(0);
    expect(decay.again.pruned).toBe(0);
    expect(decay.restored.history).toEqual(['create', 'prune', 'restore']);
  });
});
