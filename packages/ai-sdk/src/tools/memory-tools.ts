import { type AgentMemory, sanitizeForPrompt } from '@agentmem/core';
import { tool } from 'ai';
import { z } from 'zod';

const memoryType = z
  .enum(['user', 'feedback', 'project', 'reference'])
  .describe(
    'user: who the user is and prefers; feedback: how to behave; project: decisions and state; reference: where things are.',
  );

export interface MemoryToolsOptions {
  /** Scope of every tool call (default: the memory's own tenant and branch). */
  tenant?: string;
  branch?: string;
  agentId?: string;
  /** Ask the user before `forget` runs (AI SDK tool approval); default true. */
  forgetNeedsApproval?: boolean;
  /** Most results `recall` may return; default 10. */
  maxResults?: number;
}

/**
 * `remember`, `recall`, `forget` and `load_skill` (catalog mode) as AI SDK tools:
 * `generateText({ model, tools: memoryTools(memory), ... })`.
 * Writes go through the conflict check; what a tool returns is data, sanitised
 * like the context block.
 */
export function memoryTools(memory: AgentMemory, options: MemoryToolsOptions = {}) {
  const { tenant, branch, agentId } = options;
  const view =
    tenant === undefined && branch === undefined && agentId === undefined
      ? memory
      : memory.withScope({ tenant, branch, agentId });
  const maxResults = options.maxResults ?? 10;

  return {
    remember: tool({
      description:
        'Store a durable fact for later conversations (a preference, a correction, a project decision, where something is). One fact per call.',
      inputSchema: z.object({
        content: z.string().min(1).describe('The fact, self-contained.'),
        type: memoryType,
        importance: z.number().min(0).max(1).optional().describe('0..1; default 0.5.'),
        tags: z.array(z.string()).optional(),
        occurredAt: z
          .string()
          .optional()
          .describe('When it happened, ISO 8601 (e.g. 2023-05-08); default now.'),
      }),
      execute: async ({ content, type, importance, tags, occurredAt }) => {
        const outcome = await view.rememberWithConflictCheck({
          content,
          type,
          ...(importance !== undefined ? { importance } : {}),
          ...(tags ? { tags } : {}),
          ...(occurredAt !== undefined ? { occurredAt } : {}),
        });
        return {
          id: outcome.memory?.id,
          stored: outcome.stored,
          duplicate: outcome.duplicate,
          superseded: outcome.superseded,
        };
      },
    }),

    recall: tool({
      description: 'Search long-term memory for facts relevant to a query, most relevant first.',
      inputSchema: z.object({
        query: z.string().min(1),
        k: z
          .number()
          .int()
          .min(1)
          .max(maxResults)
          .optional()
          .describe(`How many results; default 5, at most ${maxResults}.`),
        types: z.array(memoryType).optional(),
        after: z.string().optional().describe('Only what happened at or after this time (ISO 8601).'),
        before: z.string().optional().describe('Only what happened before this time (ISO 8601).'),
      }),
      execute: async ({ query, k, types, after, before }) => {
        const results = await view.recall(query, {
          k: k ?? 5,
          ...(types ? { types } : {}),
          ...(after !== undefined ? { after } : {}),
          ...(before !== undefined ? { before } : {}),
        });
        return results.map((r) => ({
          id: r.memory.id,
          type: r.memory.type,
          content: sanitizeForPrompt(r.memory.content),
          occurredAt: r.memory.occurredAt,
          score: Number(r.score.toFixed(3)),
        }));
      },
    }),

    load_skill: tool({
      description:
        "Read a skill's full instructions by name (from the skill catalog in the system prompt), when the task calls for it.",
      inputSchema: z.object({ name: z.string().min(1).describe('The skill name, as the catalog lists it.') }),
      execute: async ({ name }) => {
        const skill = await view.skills.get(name);
        if (!skill) return { name, found: false, instructions: `No skill named ${JSON.stringify(name)}.` };
        return { name, found: true, instructions: await view.skills.instructions(name) };
      },
    }),

    forget: tool({
      description: 'Delete one memory by id (from recall). Use only when the user asks to forget it or it is wrong.',
      inputSchema: z.object({ id: z.string().min(1) }),
      needsApproval: options.forgetNeedsApproval ?? true,
      execute: async ({ id }) => ({ id, forgotten: await view.forget(id) }),
    }),
  };
}
