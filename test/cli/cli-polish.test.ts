import { existsSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli, useFreshStore } from './run-cli';

// The CLI defects of issue 17, each as a user meets it.
const store = useFreshStore();
const cli = store.cli;

describe('import --dry-run', () => {
  it('validates and counts without creating the --db file', async () => {
    const file = store.tmp.path('in.jsonl');
    writeFileSync(file, `${JSON.stringify({ content: 'Orders live in PostgreSQL 16', type: 'project' })}\n`);
    const run = await cli('import', file, '--dry-run', '--json');
    expect(run.code, run.stderr).toBe(0);
    expect(run.json()).toMatchObject({ total: 1, imported: 1, dryRun: true });
    expect(existsSync(store.db)).toBe(false);
  });
});

describe('progress on a terminal', () => {
  async function fill(n: number) {
    const file = store.tmp.path('fill.jsonl');
    const lines = Array.from({ length: n }, (_, i) => JSON.stringify({ content: `fact number ${i}`, type: 'user' }));
    writeFileSync(file, `${lines.join('\n')}\n`);
    expect((await cli('import', file)).code).toBe(0);
  }
  const onTerminal = (...argv: string[]) => runCli(['--db', store.db, '--branch', 'main', ...argv], { isTTY: true });

  it('export to stdout writes only the JSONL lines, no progress between them', async () => {
    await fill(250);
    const run = await onTerminal('export');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim().split('\n')).toHaveLength(250);
    expect(run.stderr).toBe('');
  });

  it('import shows every phase on a terminal: checking, embedding (each batch), and writing', async () => {
    const file = store.tmp.path('many.jsonl');
    const n = 3000;
    const lines = Array.from({ length: n }, (_, i) => JSON.stringify({ content: `imported fact ${i}`, type: 'user' }));
    writeFileSync(file, `${lines.join('\n')}\n`);
    const run = await onTerminal('import', file);
    expect(run.code, run.stderr).toBe(0);
    const shown = (phase: string) => run.stderr.split('\r').filter((line) => line.startsWith(`${phase} `));
    expect(shown('checked').length).toBeGreaterThan(50);
    // One update per embedding batch of 256: 12 batches, not only the ones whose count is a multiple of 1%.
    expect(shown('embedded').length).toBeGreaterThanOrEqual(Math.ceil(n / 256));
    // The write phase, which used to print nothing however long it took.
    expect(shown('written').map((l) => l.trim())).toEqual([
      `written 1000/${n}`,
      `written 2000/${n}`,
      `written ${n}/${n}`,
    ]);
    expect(run.stdout).toContain(`Imported ${n} of ${n} memories`);
  });

  it('export --out refreshes its progress line at most about 100 times', async () => {
    await fill(250);
    const run = await onTerminal('export', '--out', store.tmp.path('out.jsonl'));
    expect(run.code, run.stderr).toBe(0);
    const updates = run.stderr.split('\r').length - 1;
    expect(updates).toBeGreaterThan(0);
    expect(updates).toBeLessThanOrEqual(101);
    expect(run.stderr).toContain('exported 250/250');
  });
});

describe('compact --dry-run', () => {
  it('counts the pruned memories and deletes nothing', async () => {
    const id = (await cli('remember', 'Old note', '--type', 'user', '--importance', '0.01', '--json')).json().memory.id;
    expect((await cli('decay', '--now', '2031-01-01T00:00:00Z', '--yes')).code).toBe(0);
    const preview = await cli('compact', '--dry-run', '--json');
    expect(preview.code, preview.stderr).toBe(0);
    expect(preview.json()).toMatchObject({ removed: 1, dryRun: true });
    expect((await cli('restore', id)).code).toBe(0); // still there: the dry run deleted nothing
  });
});

describe('usage errors', () => {
  it('an invalid --importance is a usage error (exit 2), like other invalid option values', async () => {
    for (const value of ['5', '-0.1', 'high']) {
      const run = await cli('remember', 'x', '--type', 'user', '--importance', value, '--json');
      expect(run.code).toBe(2);
      expect(JSON.parse(run.stderr).error).toMatchObject({ code: 'USAGE', message: expect.stringMatching(/0 to 1/) });
    }
    expect(existsSync(store.db)).toBe(false);
  });

  it('a typo suggestion stays on the error line, also inside the JSON message', async () => {
    const run = await cli('rememer', 'x');
    expect(run.code).toBe(2);
    expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(/unknown command 'rememer'.*Did you mean remember\?/);
    const json = await cli('rememer', 'x', '--json');
    expect(JSON.parse(json.stderr).error.message).not.toContain('\n');
  });

  it('help for an unknown command says so and exits 2; help for a known one prints it', async () => {
    const bad = await runCli(['help', 'nope']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^error \[USAGE\]: unknown command 'nope'; commands: demo, remember/);
    expect(bad.stdout).toBe('');
    const good = await runCli(['help', 'recall']);
    expect(good.code).toBe(0);
    expect(good.stdout).toContain('Usage: agentmem recall');
    const nested = await runCli(['help', 'branch', 'delete']);
    expect(nested.stdout).toContain('Usage: agentmem branch delete');
  });

  it('subcommand help shows the global options', async () => {
    const run = await runCli(['recall', '--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/Global Options:[\s\S]*--db <path[\s\S]*--json[\s\S]*--yes/);
  });
});

describe('CLI wording and confirmations', () => {
  it('snapshot onto an existing file names --force, not the API option', async () => {
    expect((await cli('remember', 'A fact', '--type', 'user')).code).toBe(0);
    const target = store.tmp.path('snap.db');
    expect((await cli('snapshot', target)).code).toBe(0);
    const again = await cli('snapshot', target);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('pass --force to overwrite it');
    expect(again.stderr).not.toMatch(/overwrite: true|CLI:/);
  });

  it('branch delete of the current branch is refused before any confirmation, with CLI wording', async () => {
    expect((await cli('remember', 'Main uses Kafka', '--type', 'project')).code).toBe(0);
    // Without --yes and without a terminal, a confirmation would fail first with CONFIRMATION_REQUIRED.
    const refused = await cli('branch', 'delete', 'main', '--json');
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stderr).error).toMatchObject({ code: 'INVALID_INPUT' });
    expect(JSON.parse(refused.stderr).error.message).toContain('pass --force');
    expect(refused.stderr).not.toContain('{ force: true }');
  });

  it('undo-merge --last asks first: without a terminal or --yes nothing is undone', async () => {
    const other = store.tmp.path('other.db');
    expect((await cli('remember', 'Base fact', '--type', 'user')).code).toBe(0);
    expect((await cli('snapshot', other)).code).toBe(0);
    const onOther = (...argv: string[]) => runCli(['--db', other, '--branch', 'main', ...argv]);
    expect((await onOther('remember', 'New fact from the other agent', '--type', 'feedback')).code).toBe(0);
    expect((await cli('merge', other, '--yes')).code).toBe(0);

    const refused = await cli('undo-merge', '--last', '--json');
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stderr).error.code).toBe('CONFIRMATION_REQUIRED');
    expect((await cli('stats', '--json')).json().total).toBe(2);
    const undone = await cli('undo-merge', '--last', '--yes', '--json');
    expect(undone.code, undone.stderr).toBe(0);
    expect((await cli('stats', '--json')).json().total).toBe(1);
  });
});
