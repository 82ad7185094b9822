import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from './run-cli';

const DOC = readFileSync(join(__dirname, '../../docs/operations.md'), 'utf8');
/** Every `agentmem` line of the runbook's code blocks. */
const documented = [...DOC.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) =>
  m[1]!.split('\n').filter((l) => l.startsWith('agentmem ')),
);

describe('docs/operations.md: each step is a command that works', () => {
  it('runs every documented command in order, with the outcome the runbook describes', async () => {
    const tmp = tempDir();
    const ran: string[] = [];
    let id = '';
    const step = async (line: string, expected = 0) => {
      ran.push(line);
      const argv = line
        .replace(/^agentmem /, '')
        .split(' ')
        .map((a) => (a === 'ID' ? id : /\.(db|jsonl|agentmem)$/.test(a) ? tmp.path(a) : a));
      const run = await runCli(['--branch', 'main', ...argv]);
      expect(run.code, `${line}\n${run.stderr}`).toBe(expected);
      return run;
    };
    const seed = (name: string, facts: string[], type = 'project') =>
      writeFileSync(
        tmp.path(name),
        facts.map((content) => JSON.stringify({ content, type, createdAt: '2026-01-01T00:00:00Z' })).join('\n'),
      );
    try {
      // A store with a merge in it.
      seed('base.jsonl', ['Deploys go through ArgoCD.', 'Staging runs Kubernetes 1.29.']);
      await runCli(['--branch', 'main', '--db', tmp.path('memory.db'), 'import', tmp.path('base.jsonl')]);
      seed('other.jsonl', ['The billing service owns invoices.']);
      await runCli(['--branch', 'main', '--db', tmp.path('other.db'), 'import', tmp.path('other.jsonl')]);
      await runCli(['--branch', 'main', '--db', tmp.path('other.db'), 'snapshot', tmp.path('other.agentmem')]);
      await runCli(['--branch', 'main', '--db', tmp.path('memory.db'), '--yes', 'merge', tmp.path('other.agentmem')]);

      // Roll back the last merge.
      expect((await step('agentmem --db memory.db merges')).stdout).toMatch(/merge/i);
      await step('agentmem --db memory.db undo-merge --last --yes');
      const total = async () =>
        (await runCli(['--branch', 'main', '--db', tmp.path('memory.db'), 'stats', '--json'])).json().total;
      expect(await total()).toBe(2);

      // Roll back an import.
      seed('new.jsonl', ['A wrong fact from a bad export.', 'Another wrong fact.']);
      await step('agentmem --db memory.db import new.jsonl --dry-run');
      await step('agentmem --db memory.db snapshot before-import.agentmem');
      await step('agentmem --db memory.db import new.jsonl');
      expect(await total()).toBe(4);
      renameSync(tmp.path('memory.db'), tmp.path('memory.db.bad'));
      await step('agentmem --db memory.db merge before-import.agentmem --yes');
      expect((await step('agentmem --db memory.db stats --json')).json().total).toBe(2);

      // Restore pruned memories.
      await step('agentmem --db memory.db decay --dry-run --now 2036-01-01T00:00:00Z');
      expect(await total()).toBe(2);
      await step('agentmem --db memory.db decay --now 2036-01-01T00:00:00Z');
      expect(await total()).toBe(0);
      await step('agentmem --db memory.db export --out all.jsonl');
      const pruned = readFileSync(tmp.path('all.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      id = pruned.find((m: { content: string; prunedAt?: string }) => m.content.includes('ArgoCD') && m.prunedAt).id;
      await step('agentmem --db memory.db history ID');
      await step('agentmem --db memory.db restore ID');
      expect(await total()).toBe(1);

      // Recover from a damaged file: refused, store unchanged, salvage.
      writeFileSync(tmp.path('damaged.agentmem'), '');
      const refused = await step('agentmem --db memory.db diff damaged.agentmem', 1);
      expect(refused.stderr).toMatch(/^error \[NOT_A_SNAPSHOT\]: .*\n$/);
      await step('agentmem --db memory.db export --out salvage.jsonl');
      await step('agentmem --db fresh.db import salvage.jsonl');
      expect((await runCli(['--branch', 'main', '--db', tmp.path('fresh.db'), 'stats', '--json'])).json().total).toBe(
        1,
      );

      expect(ran).toEqual(documented);
    } finally {
      tmp.cleanup();
    }
  });
});
