import type { OptimizeProgress } from '@agentmem/core';
import type { Command } from 'commander';
import type { CliContext } from '../context';
import { counted } from '../output';

/** Bytes as people read them: 4.16 GB, 812.4 MB, 12.0 KB. */
function size(bytes: number): string {
  const units = ['bytes', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return unit === 0 ? `${bytes} bytes` : `${value.toFixed(value >= 100 ? 0 : value >= 10 ? 1 : 2)} ${units[unit]}`;
}

/** A progress line on stderr (stdout keeps the report, `--json` or not): one a step, one a slice of a build. */
export function progressLine(event: OptimizeProgress): string {
  const at = `(${(event.ms / 1000).toFixed(1)} s)`;
  switch (event.step) {
    case 'slice': {
      const of =
        event.vectorsBuilt !== undefined && event.vectorsTotal !== undefined
          ? `: ${event.vectorsBuilt.toLocaleString('en-US')} of ${event.vectorsTotal.toLocaleString('en-US')} vectors`
          : '';
      return `optimize: built slice ${event.slicesBuilt} of the sparse index${of} ${at}`;
    }
    case 'dense-save':
      return `optimize: saving the dense index ${at}`;
    case 'keyword-save':
      return `optimize: saving the keyword index ${at}`;
    case 'vacuum':
      return `optimize: vacuuming (rewrites the whole file) ${at}`;
    case 'checkpoint':
      return `optimize: checkpointing the log ${at}`;
  }
}

export function register(program: Command, ctx: CliContext): void {
  program
    .command('optimize')
    .description(
      'make the store ready for fast first recalls: finish index builds, save the indexes, checkpoint the log (progress on stderr); --vacuum also compacts the file',
    )
    .option('--vacuum', 'also rewrite the file compactly (VACUUM): slow on a large store, needs its size again on disk')
    .action(async (options: { vacuum?: boolean }) => {
      const memory = await ctx.openMemory({ mustExist: true });
      // Ctrl-C stops between slices of a build: the slices done are kept, the next run goes on.
      const controller = new AbortController();
      const stop = () =>
        controller.abort(
          new Error('stopped by Ctrl-C: the slices built so far are kept; run agentmem optimize again to go on'),
        );
      process.once('SIGINT', stop);
      let report: Awaited<ReturnType<typeof memory.optimize>>;
      try {
        report = await memory.optimize({
          vacuum: options.vacuum ?? false,
          abortSignal: controller.signal,
          // Lines, not a refreshed one: a deploy step or a cron logs them (a 1M store takes minutes).
          // None with --json (no progress there, as with every command: docs/cli.md).
          ...(ctx.json ? {} : { onProgress: (event: OptimizeProgress) => ctx.note(progressLine(event)) }),
        });
      } finally {
        process.off('SIGINT', stop);
      }
      if (!report) {
        const provider = memory.backend.provider;
        ctx.emit({ path: ctx.dbPath, provider, optimized: false }, () =>
          ctx.print(`Nothing to optimize: the ${provider} backend keeps its indexes up to date itself.`),
        );
        return;
      }
      const done = report;
      ctx.emit({ path: ctx.dbPath, optimized: true, ...done }, () => {
        ctx.print(`Store:    ${ctx.dbPath}`);
        if (done.slicesBuilt > 0)
          ctx.print(
            `Built:    ${counted(done.slicesBuilt, 'slice', 'slices')} of the sparse index (the rest of its build)`,
          );
        ctx.print(
          `Saved:    ${done.indexesSaved.length > 0 ? done.indexesSaved.join(', ') : '(nothing to save)'}` +
            (done.indexesCurrent.length > 0 ? `   Already current: ${done.indexesCurrent.join(', ')}` : ''),
        );
        ctx.print(
          `Log:      ${done.walCheckpointed ? 'checkpointed into the file' : 'not checkpointed: another process was reading it (run again later)'}`,
        );
        ctx.print(`Vacuum:   ${done.vacuumed ? 'done' : 'not asked (--vacuum)'}`);
        ctx.print(`Size:     ${size(done.bytesBefore)} -> ${size(done.bytesAfter)}`);
        ctx.print(`Took:     ${(done.ms / 1000).toFixed(1)} s`);
      });
    });
}
