import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import * as z from 'zod';
import { defineTool } from '../server/define-tool';
import type { ServerContext } from '../server/server-context';

export function registerDecayTool(server: McpServer, ctx: ServerContext): void {
  defineTool(
    server,
    ctx,
    'decay',
    {
      title: 'Decay',
      description:
        'Decay importance by time since last access and prune memories that fell below the threshold (they leave recall; restore brings one back). Covers every tenant of the store. Dry run by default: reports what would be pruned; dryRun: false to apply.',
      inputSchema: {
        now: z.string().optional().describe('Decay to this ISO instant instead of the current time.'),
        dryRun: z.boolean().default(true).describe('true (default): report only, write nothing.'),
      },
      outputSchema: {
        dryRun: z.boolean(),
        now: z.string(),
        threshold: z.number(),
        scanned: z.number(),
        decayed: z.number(),
        pruned: z.number(),
        untouched: z.number(),
        durationMs: z.number(),
      },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    async (args) => {
      const r = await ctx.memory.applyDecay({
        ...(args.now !== undefined ? { now: args.now } : {}),
        dryRun: args.dryRun,
      });
      const counts = `scanned ${r.scanned}, decayed ${r.decayed}, ${r.dryRun ? 'would prune' : 'pruned'} ${r.pruned}, untouched ${r.untouched}`;
      return {
        summary: r.dryRun
          ? `Dry run to ${r.now}: ${counts}. Call decay with dryRun: false to apply.`
          : `Decayed to ${r.now}: ${counts}.`,
        structured: {
          dryRun: r.dryRun,
          now: r.now,
          threshold: r.threshold,
          scanned: r.scanned,
          decayed: r.decayed,
          pruned: r.pruned,
          untouched: r.untouched,
          durationMs: r.durationMs,
        },
      };
    },
  );
}
