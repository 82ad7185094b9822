import type { MemoryType } from '@agentmem/core';
import type { Command } from 'commander';
import type { CliContext } from '../context';
import { memoriesElsewhere } from '../elsewhere';
import { CliError } from '../errors';
import { RECALL_COLUMNS, RECALL_STATUS_COLUMNS, recallJson, recallRows } from '../output';
import { parseNumber, parsePositiveInt, parseTypes } from '../parse';

interface RecallCommandOptions {
  k: number;
  types?: MemoryType[];
  includeSuperseded?: boolean;
  minScore?: number;
}

export function register(program: Command, ctx: CliContext): void {
  program
    .command('recall')
    .description('hybrid recall: the memories most relevant to a query, with score and matching signals')
    .argument('<query>', 'what to look for')
    .option('-k, --k <n>', 'how many results', parsePositiveInt, 5)
    .option('--types <list>', 'only these types (comma-separated)', parseTypes)
    .option('--include-superseded', 'also return memories replaced by newer ones')
    .option('--min-score <n>', 'drop results scoring below this', parseNumber)
    .action(async (query: string, options: RecallCommandOptions) => {
      // An empty query is a missing argument (the library's message names recall()).
      if (query.trim() === '') {
        throw new CliError('USAGE', 'Give a query: agentmem recall "what to look for".', 2, { helpHint: false });
      }
      const memory = await ctx.openMemory({ mustExist: true });
      const results = await memory.recall(query, {
        k: options.k,
        types: options.types,
        includeSuperseded: options.includeSuperseded,
        minScore: options.minScore,
      });
      ctx.emit({ query, branch: memory.branch, results: recallJson(results) }, () =>
        // With superseded memories among the results, each row says whether it is still current.
        ctx.table(
          recallRows(results),
          options.includeSuperseded ? RECALL_STATUS_COLUMNS : RECALL_COLUMNS,
          `No memories match "${query}".`,
        ),
      );
      if (results.length === 0) {
        const hint = await memoriesElsewhere(memory);
        if (hint) ctx.note(hint);
      }
    });
}
