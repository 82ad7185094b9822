import { closeSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { KIND } from '@agentmem/core';
import type { Command } from 'commander';
import type { CliContext } from '../context';

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
      const memory = await ctx.openMemory({ mustExist: true });
      const total = await memory.backend.count({
        tenant: options.allTenants ? null : memory.tenant,
        where: { kind: KIND.memory },
      });
      const memories = memory.memories({ includeInactive: true, allTenants: options.allTenants });
      if (!options.out) {
        // stdout carries the data itself, so --json changes nothing here, and no progress
        // line goes between the JSONL lines on the terminal.
        for await (const m of memories) ctx.io.stdout(`${JSON.stringify(m)}\n`);
        return;
      }
      // Written beside the target and renamed at the end: a failed export never leaves half a file.
      const path = resolve(options.out);
      const partial = `${path}.partial-${process.pid}`;
      mkdirSync(dirname(path), { recursive: true });
      const fd = openSync(partial, 'w');
      let exported = 0;
      try {
        for await (const m of memories) {
          writeSync(fd, `${JSON.stringify(m)}\n`);
          ctx.progress('exported', ++exported, total);
        }
        closeSync(fd);
        renameSync(partial, path);
      } catch (error) {
        closeSync(fd);
        rmSync(partial, { force: true });
        throw error;
      }
      ctx.emit({ exported, path }, () => ctx.print(`Exported ${exported} memories to ${path}.`));
    });
}
