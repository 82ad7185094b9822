import { AgentMemoryError } from '@agentmem/core';
import type { Command } from 'commander';
import type { CliContext } from '../context';
import { HISTORY_COLUMNS, historyRows } from '../output';

export function register(program: Command, ctx: CliContext): void {
  program
    .command('history')
    .description('every change to one memory, oldest first (also after it was forgotten)')
    .argument('<id>', 'memory id')
    .action(async (id: string) => {
      const memory = await ctx.openMemory({ mustExist: true });
      const entries = await memory.history(id);
      if (entries.length === 0) {
        throw new AgentMemoryError(
          'NOT_FOUND',
          `No memory or history with id ${id} in this scope. Find ids with \`agentmem recall\` (\`agentmem export\` lists inactive ones too); a memory of another tenant needs its --tenant.`,
          {
            details: { id },
          },
        );
      }
      ctx.emit({ id, entries }, () => ctx.table(historyRows(entries), HISTORY_COLUMNS));
    });
}
