import { AgentMemoryError, CONFLICT_RESOLUTIONS, type JsonObject } from '@agentmem/core';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import * as z from 'zod';
import { defineTool } from '../server/define-tool';
import {
  historyEntryOut,
  memoryOut,
  memoryType,
  recallResultOut,
  toHistoryEntryOut,
  toMemoryOut,
  toRecallResultOut,
} from '../server/schemas';
import type { ServerContext } from '../server/server-context';

const resolution = z.enum(CONFLICT_RESOLUTIONS as unknown as ['supersede', 'keep_both', 'keep_existing']);
const id = z.string().describe('Memory id, as returned by remember or recall.');

function notFound(memoryId: string): AgentMemoryError {
  return new AgentMemoryError(
    'NOT_FOUND',
    `No memory with id ${memoryId} in this scope. Find ids with the recall tool.`,
    { details: { id: memoryId } },
  );
}

export function registerMemoryTools(server: McpServer, ctx: ServerContext): void {
  const { memory } = ctx;

  defineTool(
    server,
    ctx,
    'remember',
    {
      title: 'Remember',
      description:
        'Store a durable fact for later sessions. type: user (who the user is, preferences), feedback (how to work: corrections, dos and donts), project (facts about this codebase; scoped to the current git branch) or reference (pointers to docs, tickets; branch-scoped). Similar memories with different content are conflicts: by default the new one supersedes them (they stay restorable).',
      inputSchema: {
        content: z.string().describe('The fact, one self-contained sentence or short paragraph.'),
        type: memoryType,
        importance: z.number().min(0).max(1).optional().describe('0..1, default 0.5.'),
        tags: z.array(z.string()).optional(),
        metadata: z.record(z.string(), z.unknown()).optional().describe('Free-form JSON kept with the memory.'),
        occurredAt: z
          .string()
          .optional()
          .describe('When it happened, ISO 8601 (e.g. 2023-05-08 or 2023-05-08T13:56:00Z); default now.'),
        onConflict: resolution
          .optional()
          .describe(
            'supersede (default): similar older memories leave recall; keep_both; keep_existing: do not write.',
          ),
      },
      outputSchema: {
        stored: z.boolean().describe('This call wrote the memory (false: duplicate or refused by keep_existing).'),
        duplicate: z.boolean(),
        resolution,
        memory: memoryOut.optional(),
        superseded: z.array(z.string()).describe('Ids that were superseded by this memory.'),
        conflicts: z.array(z.object({ memory: memoryOut, similarity: z.number() })),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    async (args) => {
      const result = await memory.rememberWithConflictCheck(
        {
          content: args.content,
          type: args.type,
          ...(args.importance !== undefined ? { importance: args.importance } : {}),
          ...(args.tags !== undefined ? { tags: args.tags } : {}),
          ...(args.metadata !== undefined ? { metadata: args.metadata as JsonObject } : {}),
          ...(args.occurredAt !== undefined ? { occurredAt: args.occurredAt } : {}),
        },
        args.onConflict !== undefined ? { resolution: args.onConflict } : {},
      );
      const summary = result.stored
        ? `Remembered ${result.memory!.id}${result.superseded.length ? `; superseded ${result.superseded.join(', ')}` : ''}.`
        : result.duplicate
          ? `Already remembered as ${result.memory?.id}.`
          : `Not stored: it conflicts with ${result.conflicts.map((c) => c.memory.id).join(', ')} (keep_existing).`;
      return {
        summary,
        structured: {
          stored: result.stored,
          duplicate: result.duplicate,
          resolution: result.resolution,
          ...(result.memory ? { memory: toMemoryOut(result.memory) } : {}),
          superseded: result.superseded,
          conflicts: result.conflicts.map((c) => ({ memory: toMemoryOut(c.memory), similarity: c.similarity })),
        },
      };
    },
  );

  defineTool(
    server,
    ctx,
    'recall',
    {
      title: 'Recall',
      description:
        'Search long-term memory (hybrid keyword + semantic) for what is relevant to a query. Sees the global memories and those of the current branch.',
      inputSchema: {
        query: z.string().describe('What you want to know, in plain words.'),
        k: z.number().int().min(1).max(100).optional().describe('How many results; default 5.'),
        types: z.array(memoryType).optional().describe('Only these memory types.'),
        minScore: z.number().optional().describe('Drop results scoring below this (0..~1.2).'),
        includeSuperseded: z.boolean().optional().describe('Also return superseded memories.'),
        after: z.string().optional().describe('Only memories that happened at or after this time (ISO 8601).'),
        before: z.string().optional().describe('Only memories that happened before this time (ISO 8601).'),
      },
      outputSchema: { results: z.array(recallResultOut) },
      // Recall only updates access statistics (which slow decay), never content.
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args) => {
      const results = await memory.recall(args.query, {
        ...(args.k !== undefined ? { k: args.k } : {}),
        ...(args.types !== undefined ? { types: args.types } : {}),
        ...(args.minScore !== undefined ? { minScore: args.minScore } : {}),
        ...(args.includeSuperseded !== undefined ? { includeSuperseded: args.includeSuperseded } : {}),
        ...(args.after !== undefined ? { after: args.after } : {}),
        ...(args.before !== undefined ? { before: args.before } : {}),
      });
      return {
        summary: results.length === 0 ? 'Nothing relevant remembered.' : `${results.length} memories.`,
        structured: { results: results.map(toRecallResultOut) },
      };
    },
  );

  defineTool(
    server,
    ctx,
    'forget',
    {
      title: 'Forget',
      description:
        'Delete a memory for good (its history stays). Dry run by default: it shows the memory; call again with dryRun: false to delete.',
      inputSchema: {
        id,
        dryRun: z.boolean().default(true).describe('true (default): only show what would be deleted.'),
      },
      outputSchema: { dryRun: z.boolean(), forgotten: z.boolean(), memory: memoryOut },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    async (args) => {
      const current = await memory.get(args.id);
      if (!current) throw notFound(args.id);
      if (args.dryRun) {
        return {
          summary: `Dry run: would forget ${current.id}. Call forget with dryRun: false to delete it.`,
          structured: { dryRun: true, forgotten: false, memory: toMemoryOut(current) },
        };
      }
      const forgotten = await memory.forget(args.id);
      return {
        summary: forgotten ? `Forgot ${args.id}.` : `${args.id} was already gone.`,
        structured: { dryRun: false, forgotten, memory: toMemoryOut(current) },
      };
    },
  );

  defineTool(
    server,
    ctx,
    'history',
    {
      title: 'Memory history',
      description:
        'Every change to one memory, oldest first: create, update, supersede, prune, restore, merge import, forget.',
      inputSchema: { id },
      outputSchema: { id: z.string(), entries: z.array(historyEntryOut) },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args) => {
      const entries = await memory.history(args.id);
      if (entries.length === 0) throw notFound(args.id);
      return {
        summary: `${entries.length} changes: ${entries.map((e) => e.action).join(', ')}.`,
        structured: { id: args.id, entries: entries.map(toHistoryEntryOut) },
      };
    },
  );

  defineTool(
    server,
    ctx,
    'restore',
    {
      title: 'Restore',
      description: 'Bring a pruned (decayed) or superseded memory back into recall.',
      inputSchema: { id },
      outputSchema: { memory: memoryOut },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    async (args) => {
      const restored = await memory.restore(args.id);
      return { summary: `Restored ${restored.id}.`, structured: { memory: toMemoryOut(restored) } };
    },
  );
}
