import { type AgentMemory, AgentMemoryError, type MergeStrategy } from '@agentmem/core';
import type { Command } from 'commander';
import { closest } from '../closest';
import type { CliContext } from '../context';
import { CliError } from '../errors';
import { counted } from '../output';
import { printDiff, progressOf, strategyOption } from './teleport';

export function register(program: Command, ctx: CliContext): void {
  const branch = program
    .command('branch')
    .description(
      'branch-scoped memory: list, switch, diff, merge and delete the project/reference memories of git branches',
    );

  branch
    .command('list')
    .description('branches with project/reference memories, and their counts')
    .action(async () => {
      const memory = await ctx.openMemory({ mustExist: true });
      const branches = await memory.listBranches();
      ctx.emit(branches, () =>
        ctx.table(
          branches.map((b) => ({ ...b, current: b.current ? '*' : '' })),
          [
            { key: 'current', header: ' ' },
            'branch',
            { key: 'project', align: 'right' },
            { key: 'reference', align: 'right' },
            { key: 'total', align: 'right' },
          ],
        ),
      );
    });

  branch
    .command('switch')
    .description('show what recall sees on another branch (the CLI follows git or --branch for later commands)')
    .argument('<name>', 'branch name')
    .action(async (name: string) => {
      const memory = await ctx.openMemory({ mustExist: true });
      const previous = memory.switchBranch(name);
      const result = { previous, current: memory.branch, recallNamespaces: memory.recallNamespaces() };
      ctx.emit(result, () => {
        ctx.print(`Switched from ${previous} to ${result.current}: recall sees ${result.recallNamespaces.join(', ')}.`);
        ctx.print(`Later commands follow git; use \`git switch ${name}\` or pass --branch ${name}.`);
      });
    });

  branch
    .command('diff')
    .description('what merging a branch into another would import; writes nothing')
    .argument('<source>', 'branch to merge from')
    .option('--into <branch>', 'target branch (default: the current one)')
    .action(async (source: string, options: { into?: string }) => {
      const memory = await ctx.openMemory({ mustExist: true });
      await hintMisspelled(ctx, memory, [source, options.into]);
      const diff = await memory.diffBranch(source, { into: options.into, onProgress: progressOf(ctx) });
      ctx.emit(diff.toJSON(), () => printDiff(ctx, diff));
    });

  branch
    .command('merge')
    .description("copy a branch's project/reference memories into another, deduplicated (asks first, --yes to skip)")
    .argument('<source>', 'branch to merge from')
    .option('--into <branch>', 'target branch (default: the current one)')
    .addOption(strategyOption())
    .action(async (source: string, options: { into?: string; strategy: MergeStrategy }) => {
      const memory = await ctx.openMemory({ mustExist: true });
      const into = options.into ?? memory.branch;
      await hintMisspelled(ctx, memory, [source, options.into]);
      // Also with --yes: a merge that brings nothing is not recorded, so `undo-merge --last` finds the real one.
      const diff = await memory.diffBranch(source, { into, onProgress: progressOf(ctx) });
      if (!ctx.yes && !ctx.json) printDiff(ctx, diff);
      if (diff.newMemories + diff.conflicts === 0) {
        ctx.emit({ ...diff.toJSON(), merged: false }, () => ctx.print('Nothing to merge.'));
        return;
      }
      if (!(await ctx.confirm(`Merge branch ${source} into ${into}?`))) {
        throw new CliError('ABORTED', 'Not confirmed; nothing was changed.');
      }
      const result = await memory.mergeBranch(source, {
        into,
        strategy: options.strategy,
        onProgress: progressOf(ctx),
      });
      ctx.emit({ ...result.toJSON(), summary: result.summary() }, () => {
        ctx.print(result.summary());
        ctx.print(`Merge id: ${result.mergeId} (undo with: agentmem undo-merge ${result.mergeId})`);
      });
    });

  branch
    .command('delete')
    .description("delete a branch's project/reference memories (globals stay); asks first, --yes to skip")
    .argument('<name>', 'branch name')
    .option('-f, --force', 'also when it is the current branch')
    .action(async (name: string, options: { force?: boolean }) => {
      const memory = await ctx.openMemory({ mustExist: true });
      // Refused before anything is asked: confirming a delete that cannot happen helps nobody.
      if (name === memory.branch && !options.force) {
        throw new AgentMemoryError(
          'INVALID_INPUT',
          `${name} is the current branch; switch to another branch first (or pass --branch), or pass --force to delete it anyway.`,
          { details: { branch: name } },
        );
      }
      const info = (await memory.listBranches()).find((b) => b.branch === name);
      if (!info || info.total === 0) {
        await hintMisspelled(ctx, memory, [name]);
        ctx.emit({ branch: name, deleted: 0 }, () => ctx.print(`Branch ${name} has no memories; nothing to delete.`));
        return;
      }
      if (!ctx.json)
        ctx.print(
          `Branch ${name}: ${info.project} project and ${counted(info.reference, 'reference memory', 'reference memories')}.`,
        );
      if (!(await ctx.confirm(`Delete the memories of branch ${name}?`))) {
        throw new CliError('ABORTED', 'Not confirmed; nothing was changed.');
      }
      const result = await memory.deleteBranch(name, { force: options.force, onProgress: progressOf(ctx) });
      ctx.emit(result, () =>
        ctx.print(
          `Deleted ${counted(result.deleted, 'memory', 'memories')} of branch ${name}; user and feedback memories are untouched.`,
        ),
      );
    });
}

/**
 * A branch name given that no memory is on, close to one that has some ("feture/auth"): said on stderr,
 * since a diff or merge of an empty branch only prints zeros. The command still runs as asked (a new
 * branch is a valid target).
 */
async function hintMisspelled(ctx: CliContext, memory: AgentMemory, names: readonly (string | undefined)[]) {
  const known = (await memory.listBranches()).filter((b) => b.total > 0 || b.current).map((b) => b.branch);
  for (const name of names) {
    if (name === undefined || known.includes(name)) continue;
    const near = closest(name, known);
    if (near)
      ctx.note(`hint: branch ${name} has no memories; did you mean ${near}? (\`agentmem branch list\` names them)`);
  }
}
