import type { DecayReport } from '@agentmem/core';
import type { Command } from 'commander';
import type { CliContext } from '../context';
import { parseNowOption } from '../parse';

interface DecayOptions {
  now?: number | string;
  dryRun?: boolean;
}

export function register(program: Command, ctx: CliContext): void {
  program
    .command('decay')
    .description('decay importance over time and prune what fell below the threshold (every tenant; restorable)')
    .option(
      '--now <when>',
      'decay to this instant instead of the current time: ISO 8601 (e.g. 2026-03-01T00:00:00Z) or epoch milliseconds',
      parseNowOption,
    )
    .option('--dry-run', 'report what would be pruned, write nothing')
    .action(async (options: DecayOptions) => {
      const memory = await ctx.openMemory({ mustExist: true });
      const report = await memory.applyDecay({
        ...(options.now !== undefined ? { now: options.now } : {}),
        dryRun: options.dryRun === true,
        onProgress: ({ phase, done, total }) => ctx.progress(phase === 'scan' ? 'scanned' : 'pruned', done, total),
      });
      ctx.emit(report, () => printReport(ctx, report));
    });
}

export function printReport(ctx: CliContext, report: DecayReport): void {
  ctx.print(
    `${report.dryRun ? 'Dry run (nothing written): decay' : 'Decayed'} to ${report.now}, prune threshold ${report.threshold}.`,
  );
  ctx.table(
    [
      { result: 'scanned', memories: report.scanned, meaning: 'active memories examined' },
      { result: 'decayed', memories: report.decayed, meaning: 'effective importance lower, still recalled' },
      {
        result: 'pruned',
        memories: report.pruned,
        meaning: report.dryRun ? 'would leave recall' : 'left recall (agentmem restore ID)',
      },
      { result: 'untouched', memories: report.untouched, meaning: 'no time since last access, or decay off' },
    ],
    ['result', { key: 'memories', align: 'right' }, 'meaning'],
  );
  ctx.print(`Took ${report.durationMs.toFixed(0)} ms.`);
}
