import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  AgentMemoryError,
  type DiffResult,
  MERGE_STRATEGIES,
  type MergeProgress,
  type MergeStrategy,
  openSnapshot,
  otherTenantsNote,
} from '@agentmem/core';
import { sqliteSnapshotFormat } from '@agentmem/sqlite';
import type { Command } from 'commander';
import { type CliContext, isDirectory, noStoreAt, refuseSpecialFile } from '../context';
import { CliError } from '../errors';
import { truncate } from '../output';
import { choiceOption, parseList, parsePositiveInt } from '../parse';

/** Progress of a long merge or snapshot on one refreshed line (terminal only). */
export function progressOf(ctx: CliContext): (p: MergeProgress) => void {
  const labels: Record<MergeProgress['phase'], string> = {
    snapshot: 'copied',
    plan: 'compared',
    apply: 'written',
    undo: 'undone',
  };
  return (p) => {
    if (p.total !== undefined) ctx.progress(labels[p.phase], p.done, p.total);
  };
}

/** A merge summary in the CLI's words: its flags, not the API's options. */
export function inCliWords(summary: string): string {
  return summary.replace(
    /merge with allTenants to include every tenant, or open the store as (that tenant|one of them)/,
    'add --all-tenants to merge every tenant, or --tenant <name> to merge into $1',
  );
}

/** The plan for people: counts, then the new records and the conflicts with both versions. */
export function printDiff(ctx: CliContext, diff: DiffResult, limit = 20): void {
  const { imports, conflicts, embedderMismatch, source } = diff.toJSON();
  // The library's line says "merge with reembed" (its option); the CLI's flag is --reembed.
  const summary = diff.summary().split('\n');
  if (embedderMismatch && summary[1]?.startsWith('Embedder differs:')) {
    const records = diff.newMemories + diff.newSkills + diff.conflicts;
    summary[1] =
      `Embedder differs: ${source.label} was built with "${source.embedder.id}", not this store's embedder; ` +
      `merge it with --reembed (\`agentmem merge ${source.label} --reembed\`) to re-embed its ${records} ${records === 1 ? 'record' : 'records'}.`;
  }
  ctx.print(inCliWords(summary.join('\n')));
  if (imports.length > 0) {
    ctx.print('\nNew:');
    ctx.table(
      imports.slice(0, limit).map((i) => ({ namespace: i.targetNamespace, id: i.id, content: i.content })),
      [
        { key: 'namespace', max: 28 },
        { key: 'id', max: 30 },
        { key: 'content', max: 70 },
      ],
    );
    if (imports.length > limit) ctx.print(`… and ${imports.length - limit} more (--json lists all)`);
  }
  if (conflicts.length > 0) {
    ctx.print('\nConflicts (same id, different content):');
    for (const c of conflicts.slice(0, limit)) {
      ctx.print(`  ${c.id} (${c.namespace}), newer: ${c.newer}`);
      ctx.print(`    local  ${c.local.updatedAt ?? '-'}  ${truncate(c.local.content, 90)}`);
      ctx.print(`    remote ${c.remote.updatedAt ?? '-'}  ${truncate(c.remote.content, 90)}`);
    }
    if (conflicts.length > limit) ctx.print(`… and ${conflicts.length - limit} more (--json lists all)`);
  }
}

export const strategyOption = () =>
  choiceOption(
    '-s, --strategy <strategy>',
    'how conflicts (same id, different content) are resolved',
    MERGE_STRATEGIES,
  ).default('newer_wins');

interface MergeOptions {
  strategy: MergeStrategy;
  namespaces?: string[];
  reembed?: boolean;
  allTenants?: boolean;
  commitEvery?: number;
}

const SNAPSHOT_FILE = 'Give a snapshot file (made with agentmem snapshot).';

export function register(program: Command, ctx: CliContext): void {
  program
    .command('snapshot')
    .description('write the whole store (memories, skills, history) into one snapshot file another agent can open')
    .argument('<path>', 'snapshot file to create')
    .option('-f, --force', 'overwrite an existing file')
    .action(async (path: string, options: { force?: boolean }) => {
      // --force would replace the pipe or device with a file (as root, /dev/null too).
      refuseSpecialFile(resolve(path), 'The snapshot target', 'Give the path of a file to create.');
      const memory = await ctx.openMemory({ mustExist: true });
      // A directory first: --force cannot overwrite it, so "pass --force" would only lead to this error.
      if (isDirectory(resolve(path))) {
        throw new AgentMemoryError(
          'INVALID_INPUT',
          `${resolve(path)} is a directory; give a file path, e.g. ${resolve(path, 'memory.agentmem')}.`,
          { details: { path: resolve(path) } },
        );
      }
      if (!options.force && existsSync(resolve(path))) {
        throw new AgentMemoryError(
          'INVALID_INPUT',
          `${resolve(path)} already exists. Choose another path, or pass --force to overwrite it.`,
          { details: { path: resolve(path) } },
        );
      }
      const result = await memory.snapshot(path, { overwrite: options.force, onProgress: progressOf(ctx) });
      ctx.emit({ path: result.path, manifest: result.manifest, durationMs: result.durationMs }, () =>
        ctx.print(result.summary()),
      );
    });

  program
    .command('diff')
    .description('what merging a snapshot would do (new, duplicates, conflicts); writes nothing')
    .argument('<path>', 'snapshot file')
    .option(
      '-n, --namespaces <list>',
      'only these namespaces (comma-separated; `project:*` matches a prefix)',
      parseList,
    )
    .option('--all-tenants', 'every tenant of the snapshot, not only --tenant')
    .action(async (path: string, options: Omit<MergeOptions, 'strategy' | 'reembed' | 'commitEvery'>) => {
      refuseSpecialFile(resolve(path), 'The snapshot', SNAPSHOT_FILE);
      const memory = await ctx.openMemory({ mustExist: true });
      const diff = await memory.diff(path, {
        namespaces: options.namespaces,
        allTenants: options.allTenants,
        onProgress: progressOf(ctx),
      });
      ctx.emit(diff.toJSON(), () => printDiff(ctx, diff));
    });

  program
    .command('merge')
    .description('merge a snapshot into the store, all or nothing; shows the diff and asks first (--yes to skip)')
    .argument('<path>', 'snapshot file')
    .addOption(strategyOption())
    .option(
      '-n, --namespaces <list>',
      'only these namespaces (comma-separated; `project:*` matches a prefix)',
      parseList,
    )
    .option('--reembed', 're-embed a snapshot built with another embedder (otherwise it is refused)')
    .option('--all-tenants', 'every tenant of the snapshot, not only --tenant')
    .option(
      '--commit-every <n>',
      'commit every n records as a merge of its own: after a failure, the same command writes (and re-embeds) only the rest',
      parsePositiveInt,
    )
    .action(async (path: string, options: MergeOptions) => {
      refuseSpecialFile(resolve(path), 'The snapshot', SNAPSHOT_FILE);
      // A bad snapshot is refused before a new --db is created for nothing (an existing store is
      // opened anyway, and the diff below reports the same error).
      if (noStoreAt(ctx.dbPath)) await checkSnapshot(path);
      const memory = await ctx.openMemory();
      const scope = { namespaces: options.namespaces, allTenants: options.allTenants };
      // Also with --yes: a merge that brings nothing is not recorded, so `undo-merge --last` finds the real one.
      const diff = await memory.diff(path, { ...scope, onProgress: progressOf(ctx) });
      if (!ctx.yes && !ctx.json) printDiff(ctx, diff);
      if (diff.newMemories + diff.newSkills + diff.conflicts === 0) {
        ctx.emit({ ...diff.toJSON(), merged: false }, () => {
          // The diff above already said why when it was printed; --yes skips it.
          const others = otherTenantsNote(diff.plan);
          ctx.print(others && ctx.yes ? `Nothing to merge. ${inCliWords(others)}` : 'Nothing to merge.');
        });
        return;
      }
      if (!(await ctx.confirm(`Merge ${path} with strategy ${options.strategy}?`))) {
        throw new CliError('ABORTED', 'Not confirmed; nothing was changed.');
      }
      const result = await memory.merge(path, {
        ...scope,
        strategy: options.strategy,
        reembed: options.reembed,
        commitEvery: options.commitEvery,
        onProgress: progressOf(ctx),
      });
      ctx.emit({ ...result.toJSON(), summary: result.summary() }, () => {
        ctx.print(inCliWords(result.summary()));
        if (result.mergeIds.length > 1)
          ctx.print(`Merge ids: ${result.mergeIds.join(', ')} (undo each with: agentmem undo-merge ID)`);
        else ctx.print(`Merge id: ${result.mergeId} (undo with: agentmem undo-merge ${result.mergeId})`);
      });
    });

  program
    .command('undo-merge')
    .description(
      'restore the state before a merge (snapshot or branch): remove what it imported, restore what it overwrote',
    )
    .argument('[id]', 'merge id (see `agentmem merges`)')
    .option('--last', 'the most recent merge not undone yet')
    .action(async (id: string | undefined, options: { last?: boolean }) => {
      const memory = await ctx.openMemory({ mustExist: true });
      let mergeId = id;
      if (!mergeId) {
        if (!options.last)
          throw new CliError(
            'USAGE',
            'Give a merge id (`agentmem merges` lists them), or --last for the most recent merge.',
            2,
            { helpHint: false },
          );
        const merges = await memory.listMerges();
        const last = merges.find((m) => m.status === 'applied');
        // Not a usage mistake but the store's state, like an unknown or already undone merge id: exit 1.
        if (!last)
          throw new AgentMemoryError(
            'NOT_FOUND',
            `No merge to undo: ${merges.length === 0 ? 'this store has no merges' : 'every merge of this store was undone already'} (see \`agentmem merges\`).`,
            { details: { merges: merges.length } },
          );
        // --last picks the merge for the user: say which one before undoing it.
        if (!ctx.json) ctx.print(`Last merge: ${last.id} from ${last.source.label} at ${last.at}.`);
        if (!(await ctx.confirm(`Undo merge ${last.id}?`))) {
          throw new CliError('ABORTED', 'Not confirmed; nothing was changed.');
        }
        mergeId = last.id;
      }
      const result = await memory.undoMerge(mergeId, { onProgress: progressOf(ctx) });
      ctx.emit({ ...result.toJSON(), summary: result.summary() }, () => ctx.print(result.summary()));
    });

  program
    .command('merges')
    .description('every merge of this store, newest first (ids for undo-merge)')
    .action(async () => {
      const memory = await ctx.openMemory({ mustExist: true });
      const merges = await memory.listMerges();
      ctx.emit(merges, () =>
        ctx.table(
          merges.map((m) => ({
            id: m.id,
            at: m.at,
            source: m.source.label,
            strategy: m.strategy,
            imported: m.counts.imported,
            overwritten: m.counts.overwritten,
            status: m.status,
          })),
          [
            { key: 'id', max: 34 },
            'at',
            { key: 'source', max: 40 },
            'strategy',
            { key: 'imported', align: 'right' },
            { key: 'overwritten', align: 'right' },
            'status',
          ],
          '(no merges)',
        ),
      );
    });
}

/** Opens and closes a snapshot: the checks merge would make (missing, not a snapshot, damaged) before anything else. */
async function checkSnapshot(path: string): Promise<void> {
  const { backend } = await openSnapshot(path, sqliteSnapshotFormat);
  await backend.close();
}
