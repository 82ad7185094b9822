import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import * as z from 'zod';
import { defineTool } from '../server/define-tool';
import { diffOut, mergeStrategy, mergeToolOut, toDiffOut, toMergeOut } from '../server/schemas';
import type { ServerContext } from '../server/server-context';

const source = z.string().describe('The branch whose project and reference memories are merged.');
const into = z.string().optional().describe('Target branch; default the current one.');

export function registerBranchTools(server: McpServer, ctx: ServerContext): void {
  const { memory } = ctx;

  defineTool(
    server,
    ctx,
    'branch_list',
    {
      title: 'List branches',
      description: 'Branches that hold project or reference memories, with counts, and which one is current.',
      inputSchema: {},
      outputSchema: {
        current: z.string(),
        branches: z.array(
          z.object({
            branch: z.string(),
            project: z.number(),
            reference: z.number(),
            total: z.number(),
            current: z.boolean(),
          }),
        ),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async () => {
      const branches = await memory.listBranches();
      return {
        summary: `Current branch: ${memory.branch}; ${branches.length} branches with memories.`,
        structured: {
          current: memory.branch,
          branches: branches.map((b) => ({
            branch: b.branch,
            project: b.project,
            reference: b.reference,
            total: b.total,
            current: b.current,
          })),
        },
      };
    },
  );

  defineTool(
    server,
    ctx,
    'branch_switch',
    {
      title: 'Switch branch',
      description:
        'Make another branch current for project and reference memories (user and feedback memories are global). Use it after checking out another git branch.',
      inputSchema: { branch: z.string().describe('Branch name, e.g. feature/login.') },
      outputSchema: { previous: z.string(), current: z.string(), recallNamespaces: z.array(z.string()) },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    async (args) => {
      const previous = memory.switchBranch(args.branch);
      ctx.branchPinned = true;
      return {
        summary: `Branch ${previous} → ${memory.branch}.`,
        structured: { previous, current: memory.branch, recallNamespaces: memory.recallNamespaces() },
      };
    },
  );

  defineTool(
    server,
    ctx,
    'branch_diff',
    {
      title: 'Diff branches',
      description:
        "What merging a branch's memories into another would import, skip as duplicates and conflict on. Writes nothing.",
      inputSchema: { source, into },
      outputSchema: diffOut.shape,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args) => {
      const diff = await memory.diffBranch(args.source, args.into !== undefined ? { into: args.into } : {});
      return { summary: diff.summary(), structured: toDiffOut(diff) };
    },
  );

  defineTool(
    server,
    ctx,
    'branch_merge',
    {
      title: 'Merge branch',
      description:
        "Import a branch's project and reference memories into another branch (default: current), deduplicated. Dry run by default (returns the plan); call with dryRun: false to merge. A merge can be undone with undo_merge.",
      inputSchema: {
        source,
        into,
        strategy: mergeStrategy.optional().describe('How id conflicts are resolved; default newer_wins.'),
        dryRun: z.boolean().default(true).describe('true (default): only return the plan.'),
      },
      outputSchema: mergeToolOut,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    async (args) => {
      const options = {
        ...(args.into !== undefined ? { into: args.into } : {}),
        ...(args.strategy !== undefined ? { strategy: args.strategy } : {}),
      };
      if (args.dryRun) {
        const diff = await memory.diffBranch(args.source, options);
        const summary = `Dry run: ${diff.summary()}. Call branch_merge with dryRun: false to merge.`;
        return { summary, structured: { dryRun: true, summary: diff.summary(), plan: toDiffOut(diff) } };
      }
      const result = await memory.mergeBranch(args.source, options);
      return {
        summary: `${result.summary()} (merge ${result.mergeId})`,
        structured: { dryRun: false, summary: result.summary(), merge: toMergeOut(result) },
      };
    },
  );
}
