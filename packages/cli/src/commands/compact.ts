import type { Command } from 'commander';
import type { CliContext } from '../context';
import { CliError } from '../errors';
import { counted } from '../output';

export function register(program: Command, ctx: CliContext): void {
  program
    .command('compact')
    .description('delete pruned memories for good, every tenant (history stays); asks first, --yes to skip')
    .option('--dry-run', 'count the pruned memories that would be deleted, delete nothing')
    .action(async (options: { dryRun?: boolean }) => {
      const memory = await ctx.openMemory({ mustExist: true });
      const preview = await memory.compact({ dryRun: true });
      if (options.dryRun) {
        ctx.emit(preview, () =>
          ctx.print(
            `${counted(preview.removed, 'pruned memory', 'pruned memories')} would be deleted for good (dry run: nothing was changed).`,
          ),
        );
        return;
      }
      if (preview.removed === 0) {
        ctx.emit({ removed: 0, durationMs: preview.durationMs, dryRun: false }, () =>
          ctx.print('No pruned memories: nothing to compact.'),
        );
        return;
      }
      if (!ctx.json)
        ctx.print(
          `${counted(preview.removed, 'pruned memory', 'pruned memories')} would be deleted for good; they could no longer be restored.`,
        );
      if (!(await ctx.confirm(`Delete ${counted(preview.removed, 'pruned memory', 'pruned memories')}?`))) {
        throw new CliError('ABORTED', 'Not confirmed; nothing was changed.');
      }
      const report = await memory.compact();
      ctx.emit(report, () =>
        ctx.print(
          `Compacted: deleted ${counted(report.removed, 'pruned memory', 'pruned memories')} in ${report.durationMs.toFixed(0)} ms.`,
        ),
      );
    });
}
