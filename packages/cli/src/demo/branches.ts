import { join } from 'node:path';
import type { DemoContext } from './demo-context';
import { DEMO_MEMORIES } from './memories';

/**
 * The branch life cycle on a store of its own (the main demo store stays as
 * the other sections left it): memories on main, a feature branch that sees
 * the globals and its own memories only, merge into main, delete the branch.
 */
export async function branchesSection(d: DemoContext): Promise<void> {
  const memory = await d.cli.openMemory({
    path: join(d.workDir, 'branches.db'),
    branch: 'main',
    agentId: 'demo-agent',
  });
  d.heading('Branches: memories on main');
  await memory.rememberMany(DEMO_MEMORIES.filter((m) => m.type !== 'reference'));
  d.print(`On ${memory.branch}, recall sees: ${memory.recallNamespaces().join(', ')}`);

  d.heading('Branches: switch to feature/auth');
  const previous = memory.switchBranch('feature/auth');
  await memory.rememberMany([
    {
      type: 'project',
      content: 'Checkout login moves to OAuth2 with PKCE; the session cookie goes away.',
      importance: 0.8,
    },
    { type: 'reference', content: 'RFC 7636 (PKCE) and the provider guide: https://auth.example.com/docs/pkce' },
  ]);
  d.print(`Switched from ${previous}; recall sees: ${memory.recallNamespaces().join(', ')}`);
  const query = 'checkout login and payments';
  const seen = await memory.recall(query, { k: 8, reinforce: false });
  d.print(
    `\n> recall "${query}" on feature/auth (globals + feature memories only; main's project memories are not visible)`,
  );
  d.table(
    seen.map((r) => ({ namespace: r.memory.namespace, content: r.memory.content })),
    ['namespace', { key: 'content', max: 80 }],
  );

  d.heading('Branches: merge feature/auth into main, then delete it');
  memory.switchBranch('main');
  const diff = await memory.diffBranch('feature/auth');
  d.print(`diff: ${diff.summary()}`);
  const merged = await memory.mergeBranch('feature/auth');
  d.print(merged.summary());
  const again = await memory.mergeBranch('feature/auth');
  d.print(`again: ${again.summary()}`);
  const deleted = await memory.deleteBranch('feature/auth');
  d.print(`Deleted ${deleted.deleted} memories of feature/auth; user and feedback memories are untouched.\n`);
  const branches = await memory.listBranches();
  d.table(
    branches.map((b) => ({ ...b, current: b.current ? '*' : '' })),
    [{ key: 'current', header: ' ' }, 'branch', 'project', 'reference', 'total'],
  );

  d.summary.branches = {
    featureRecall: seen.map((r) => r.memory.namespace),
    merge: { ...merged.toJSON(), summary: merged.summary() },
    remerge: again.summary(),
    deleted: deleted.deleted,
    branches,
  };
}
