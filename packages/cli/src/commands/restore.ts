import { statusOf } from '@agentmem/core';
import type { Command } from 'commander';
import type { CliContext } from '../context';
import { describeMemory } from '../output';

export function register(program: Command, ctx: CliContext): void {
  program
    .command('restore')
    .description('bring a pruned or superseded memory back into recall (until compact removes it)')
    .argument('<id>', 'memory id')
    .action(async (id: string) => {
      const memory = await ctx.openMemory({ mustExist: true });
      const before = await memory.get(id);
      const restored = await memory.restore(id);
      const was = before ? statusOf(before) : 'active';
      ctx.emit({ restored: was !== 'active', was, memory: restored }, () => {
        ctx.print(was === 'active' ? 'Already active, nothing changed:' : `Restored (was ${was}):`);
        ctx.print(describeMemory(restored));
      });
    });
}
