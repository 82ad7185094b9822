import type { Command } from 'commander';
import type { CliContext } from '../context';
import { memoriesElsewhere } from '../elsewhere';

export function register(program: Command, ctx: CliContext): void {
  program
    .command('stats')
    .description('active memories per namespace, inactive count, embedder')
    .action(async () => {
      const memory = await ctx.openMemory({ mustExist: true });
      const stats = await memory.stats();
      const summary = {
        path: ctx.dbPath,
        tenant: memory.tenant,
        branch: memory.branch,
        embedder: { id: memory.embedder.id, dimension: memory.embedder.dimension },
        ...stats,
      };
      ctx.emit(summary, () => {
        ctx.print(`Store:    ${summary.path}`);
        ctx.print(`Tenant:   ${summary.tenant || '(default)'}   Branch: ${summary.branch}`);
        ctx.print(`Embedder: ${summary.embedder.id} (${summary.embedder.dimension} dimensions)`);
        ctx.print(`Active:   ${stats.total}   Inactive (superseded or pruned): ${stats.inactive}`);
        ctx.print();
        ctx.table(
          stats.namespaces.map((n) => ({ namespace: n.namespace, active: n.count })),
          ['namespace', { key: 'active', align: 'right' }],
          '(no memories yet)',
        );
      });
      if (stats.total === 0) {
        const hint = await memoriesElsewhere(memory);
        if (hint) ctx.note(hint);
      }
    });
}
