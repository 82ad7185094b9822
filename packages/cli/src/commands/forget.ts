import { AgentMemoryError } from '@agentmem/core';
import type { Command } from 'commander';
import type { CliContext } from '../context';
import { CliError } from '../errors';
import { describeMemory } from '../output';

export function register(program: Command, ctx: CliContext): void {
  program
    .command('forget')
    .description('delete a memory for good (its history stays); asks first, --yes to skip')
    .argument('<id>', 'memory id')
    .action(async (id: string) => {
      const memory = await ctx.openMemory({ mustExist: true });
      const current = await memory.get(id);
      if (!current) {
        throw new AgentMemoryError(
          'NOT_FOUND',
          `No memory with id ${id} in this scope. Find ids with \`agentmem recall\`.`,
          {
            details: { id },
          },
        );
      }
      if (!ctx.json) ctx.print(`About to forget:\n${describeMemory(current)}`);
      if (!(await ctx.confirm(`Forget memory ${id}?`))) {
        throw new CliError('ABORTED', 'Not confirmed; nothing was changed.');
      }
      await memory.forget(id);
      ctx.emit({ forgotten: true, memory: current }, () => ctx.print(`Forgot ${id}.`));
    });
}
