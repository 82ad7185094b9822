import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, tempDir } from './run-cli';

const root = fileURLToPath(new URL('../..', import.meta.url));

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => tmp.cleanup());

describe('agentmem demo', () => {
  it('runs the tour on a fresh temporary store and removes it', async () => {
    const run = await runCli(['demo']);
    expect(run.code, run.stderr).toBe(0);
    for (const heading of ['Memories: remember', 'Recall:', 'Prompt injection', 'History:'])
      expect(run.stdout).toContain(heading);
    expect(run.stdout).toMatch(/SCORE\s+SIGNALS/);
    expect(run.stdout).toContain('<agentmem-context>');
    expect(run.stdout).toMatch(/create\s+demo-agent[\s\S]*update\s+demo-agent/);
    const store = /fresh memory store at (\S+)/.exec(run.stdout)![1]!;
    expect(existsSync(store)).toBe(false);
  });

  it('lists every section the tour shows in demo --help', async () => {
    const tour = await runCli(['demo']);
    // A heading is "=== Topic: what it shows ===": each topic must be in the help.
    const topics = new Set([...tour.stdout.matchAll(/^=== ([^:=]+):/gm)].map((m) => m[1]!.toLowerCase()));
    expect([...topics]).toEqual(
      expect.arrayContaining(['skills', 'memories', 'recall', 'conflicts', 'decay', 'branches', 'teleport']),
    );
    const help = (await runCli(['demo', '--help'])).stdout.replace(/\s+/g, ' ');
    for (const topic of topics) expect(help, topic).toContain(topic);
  });

  it('keeps the store with --db, so the commands can explore it afterwards', async () => {
    const db = tmp.path('demo.db');
    expect((await runCli(['--db', db, 'demo', '--json'])).code).toBe(0);
    // The tour changes its store as it goes (supersede, decay weeks later, merges), so check what survives it.
    const stats = await runCli(['--db', db, 'stats', '--json']);
    expect(stats.json()).toMatchObject({ total: expect.any(Number), inactive: expect.any(Number) });
    expect(stats.json().total).toBeGreaterThan(0);
    // The demo writes on branch main; without --branch, recall would read this checkout's git branch.
    const recall = await runCli(['--db', db, '--branch', 'main', 'recall', 'stripe webhook retries', '--json']);
    expect(recall.json().results[0].content).toContain('Stripe webhook handler must be idempotent');
  });

  it('npm run demo works as a real process and prints recall results (--json)', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'packages/cli/src/bin.ts', 'demo', '--json'],
      {
        cwd: root,
        timeout: 60_000,
      },
    );
    const summary = JSON.parse(stdout);
    expect(summary.memories.remembered).toBe(12);
    expect(summary.memories.byType).toEqual({ user: 3, feedback: 3, project: 3, reference: 3 });
    const stripe = summary.memories.recalls.find((r: { query: string }) => r.query === 'stripe webhook retries');
    expect(stripe.results[0]).toMatchObject({ type: 'project', signals: { keyword: { rank: 1 } } });
    expect(stripe.results[0].content).toContain('Stripe webhook handler must be idempotent');
    expect(summary.memories.prompt.block).toContain('## Relevant memories');
    expect(summary.memories.history.entries.map((e: { action: string }) => e.action)).toEqual(['create', 'update']);
  });

  it('run from source with a working directory outside the checkout, still finds the demo skills', async () => {
    // The demo's skills section looked for examples/skills upward from the working directory only.
    const { stdout } = await promisify(execFile)(
      join(root, 'node_modules', '.bin', 'tsx'),
      ['--tsconfig', join(root, 'tsconfig.json'), join(root, 'packages/cli/src/bin.ts'), 'demo'],
      { cwd: tmp.dir, timeout: 60_000 },
    );
    expect(stdout).not.toContain('Demo skills not found');
    expect(stdout).toMatch(/Loaded [1-9]\d* skills from /);
    expect(stdout).toContain(`skills from ${join(root, 'examples', 'skills')}`);
  });
});
