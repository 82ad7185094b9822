import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import * as z from 'zod';
import { defineTool } from '../server/define-tool';
import { diffOut, mergeStrategy, mergeToolOut, toDiffOut, toMergeOut } from '../server/schemas';
import type { ServerContext } from '../server/server-context';
import { AgentMemoryError } from '@agentmem/core';

const path = z.string().describe("Snapshot file; relative paths start at the client's working directory.");
const namespaces = z
  .array(z.string())
  .optional()
  .describe('Only these source namespaces (a trailing * matches a prefix, e.g. project:*); default all.');

export function registerTeleportTools(server: McpServer, ctx: ServerContext): void {
  const { memory } = ctx;

  defineTool(
    server,
    ctx,
    'snapshot',
    {
      title: 'Snapshot',
      description:
        'Write the whole store (memories, skills, history) into one self-describing file that another agent can open, work in and send back for merge_snapshot.',
      inputSchema: {
        path,
        overwrite: z.boolean().default(false).describe('Replace an existing file; default false (refuse).'),
      },
      outputSchema: {
        path: z.string(),
        summary: z.string(),
        manifest: z.object({
          formatVersion: z.number(),
          embedder: z.object({ id: z.string(), dimension: z.number() }),
          createdAt: z.string(),
          sourceAgentId: z.string().optional(),
          sourceBackend: z.string(),
          counts: z.object({
            total: z.number(),
            memories: z.number(),
            skills: z.number(),
            history: z.number(),
            merges: z.number(),
          }),
        }),
        durationMs: z.number(),
      },
      // With overwrite: true it replaces an existing file, so clients should confirm it.
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    },
    async (args) => {
      const result = await memory.snapshot(await ctx.resolvePath(args.path, { write: true }), {
        overwrite: args.overwrite === true,
      });
      const m = result.manifest;
      return {
        summary: result.summary(),
        structured: {
          path: result.path,
          summary: result.summary(),
          manifest: {
            formatVersion: m.formatVersion,
            embedder: { id: m.embedder.id, dimension: m.embedder.dimension },
            createdAt: m.createdAt,
            ...(m.sourceAgentId !== undefined ? { sourceAgentId: m.sourceAgentId } : {}),
            sourceBackend: m.sourceBackend,
            counts: { ...m.counts },
          },
          durationMs: result.durationMs,
        },
      };
    },
  );

  defineTool(
    server,
    ctx,
    'diff_snapshot',
    {
      title: 'Diff snapshot',
      description:
        'What merging a snapshot file would do: new memories, skipped duplicates, conflicts with both versions and timestamps. Writes nothing.',
      inputSchema: { path, namespaces },
      outputSchema: diffOut.shape,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args) => {
      const diff = await memory.diff(
        await ctx.resolvePath(args.path),
        args.namespaces ? { namespaces: args.namespaces } : {},
      );
      return { summary: diff.summary(), structured: toDiffOut(diff) };
    },
  );

  defineTool(
    server,
    ctx,
    'merge_snapshot',
    {
      title: 'Merge snapshot',
      description:
        'Merge a snapshot file into the store, all or nothing. Dry run by default (returns the plan); call with dryRun: false to merge. Undo with undo_merge and the returned mergeId.',
      inputSchema: {
        path,
        namespaces,
        strategy: mergeStrategy
          .optional()
          .describe(
            'Conflicts (same id, different content): newer_wins (default), local_wins, remote_wins, keep_both.',
          ),
        reembed: z.boolean().optional().describe('Re-embed a snapshot made with another embedder (else refused).'),
        dryRun: z.boolean().default(true).describe('true (default): only return the plan.'),
      },
      outputSchema: mergeToolOut,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    async (args) => {
      const file = await ctx.resolvePath(args.path);
      const scope = args.namespaces ? { namespaces: args.namespaces } : {};
      if (args.dryRun) {
        const diff = await memory.diff(file, scope);
        const summary = `Dry run: ${diff.summary()}. Call merge_snapshot with dryRun: false to merge.`;
        return { summary, structured: { dryRun: true, summary: diff.summary(), plan: toDiffOut(diff) } };
      }
      const result = await memory.merge(file, {
        ...scope,
        ...(args.strategy !== undefined ? { strategy: args.strategy } : {}),
        ...(args.reembed !== undefined ? { reembed: args.reembed } : {}),
      });
      return {
        summary: `${result.summary()} (merge ${result.mergeId})`,
        structured: { dryRun: false, summary: result.summary(), merge: toMergeOut(result) },
      };
    },
  );

  defineTool(
    server,
    ctx,
    'undo_merge',
    {
      title: 'Undo merge',
      description:
        'Restore the state before a merge (snapshot or branch): removes what it imported, puts back what it overwrote. Dry run by default (shows the merge); dryRun: false to undo.',
      inputSchema: {
        mergeId: z.string().describe('The mergeId a merge returned.'),
        dryRun: z.boolean().default(true).describe('true (default): only show the merge that would be undone.'),
      },
      outputSchema: {
        dryRun: z.boolean(),
        summary: z.string(),
        mergeId: z.string(),
        removed: z.number().optional(),
        restored: z.number().optional(),
      },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    async (args) => {
      if (args.dryRun) {
        const merge = (await memory.listMerges()).find((m) => m.id === args.mergeId);
        if (!merge) {
          throw new AgentMemoryError(
            'NOT_FOUND',
            `No merge with id ${args.mergeId}. Merge ids come back from branch_merge and merge_snapshot.`,
            {
              details: { mergeId: args.mergeId },
            },
          );
        }
        const summary = `Dry run: would undo merge ${merge.id} of ${merge.source.label} at ${merge.at} (status ${merge.status}). Call undo_merge with dryRun: false to undo.`;
        return { summary, structured: { dryRun: true, summary, mergeId: merge.id } };
      }
      const result = await memory.undoMerge(args.mergeId);
      return {
        summary: result.summary(),
        structured: {
          dryRun: false,
          summary: result.summary(),
          mergeId: result.mergeId,
          removed: result.removed,
          restored: result.restored,
        },
      };
    },
  );
}
