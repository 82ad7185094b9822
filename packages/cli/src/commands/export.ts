import { closeSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { resolve } from 'node:path';
import { AgentMemoryError, KIND } from '@agentmem/core';
import { ensureParentDirectory } from '@agentmem/sqlite';
import type { Command } from 'commander';
import { type CliContext, isDirectory, refuseSpecialFile } from '../context';
import { counted } from '../output';

interface ExportOptions {
  out?: string;
  allTenants?: boolean;
}

export function register(program: Command, ctx: CliContext): void {
  program
    .command('export')
    .description('write every memory (all namespaces and branches, inactive ones too) as JSONL')
    .option('-o, --out <file>', 'write to this file instead of stdout')
    .option('--all-tenants', 'every tenant, not only --tenant')
    .action(async (options: ExportOptions) => {
      // A bad --out is refused before the store is read.
      const path = options.out === undefined ? undefined : checkOutPath(resolve(options.out));
      const memory = await ctx.openMemory({ mustExist: true });
      const total = await memory.backend.count({
        tenant: options.allTenants ? null : memory.tenant,
        where: { kind: KIND.memory },
      });
      const memories = memory.memories({ includeInactive: true, allTenants: options.allTenants });
      if (!path) {
        // stdout carries the data itself, so --json changes nothing here, and no progress
        // line goes between the JSONL lines on the terminal.
        for await (const m of memories) ctx.io.stdout(`${JSON.stringify(m)}\n`);
        return;
      }
      // Written beside the target and renamed at the end: a failed export never leaves half a file.
      const partial = `${path}.partial-${process.pid}`;
      let fd: number | undefined = openSync(partial, 'w');
      let exported = 0;
      try {
        for await (const m of memories) {
          writeSync(fd, `${JSON.stringify(m)}\n`);
          ctx.progress('exported', ++exported, total);
        }
        closeSync(fd);
        fd = undefined;
        renameSync(partial, path);
      } catch (error) {
        if (fd !== undefined) closeSync(fd);
        rmSync(partial, { force: true });
        throw error;
      }
      ctx.emit({ exported, path }, () => ctx.print(`Exported ${counted(exported, 'memory', 'memories')} to ${path}.`));
    });
}

/** `--out` must name a file whose directory exists or can be created: refused with the fix, not EISDIR/EEXIST. */
function checkOutPath(path: string): string {
  // The export is renamed over the target at the end: it would replace the pipe or device with a file.
  refuseSpecialFile(path, '--out', 'Give the path of a file, or leave out --out to write to stdout.');
  if (isDirectory(path)) {
    throw new AgentMemoryError(
      'INVALID_INPUT',
      `--out ${path} is a directory; give a file path, e.g. --out ${resolve(path, 'memories.jsonl')}.`,
      { details: { path } },
    );
  }
  ensureParentDirectory(path, `Cannot write --out ${path}`);
  return path;
}
