import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import * as z from 'zod';
import type { ServerContext } from '../server/server-context';

export const CONTEXT_PROMPT = 'context_for_task';

/**
 * "Context for this task": the block the runtime middleware would inject for
 * a message (active skills and relevant memories, delimited as data),
 * followed by the task itself, as one user message.
 */
export function registerPrompts(server: McpServer, ctx: ServerContext): void {
  server.registerPrompt(
    CONTEXT_PROMPT,
    {
      title: 'Context for this task',
      description: 'The skills and memories relevant to a task, injected before it (the agentmem context block).',
      argsSchema: {
        message: z.string().describe('The task or user message.'),
        filePath: z.string().optional().describe('The file being worked on (activates skills by glob).'),
        files: z
          .string()
          .optional()
          .describe('More files being worked on, comma-separated (prompt arguments are strings).'),
      },
    },
    async ({ message, filePath, files }, extra) => {
      await ctx.beforeRequest(extra.requestId);
      const list = (files ?? '')
        .split(',')
        .map((f) => f.trim())
        .filter((f) => f !== '');
      const context = await ctx.memory.contextFor(message, {
        ...(filePath ? { filePath } : {}),
        ...(list.length > 0 ? { files: list } : {}),
      });
      const text = context.block === '' ? message : `${context.block}\n\n${message}`;
      return {
        description:
          context.block === ''
            ? 'No skill or memory is relevant to this task.'
            : `${context.skills.length} skills and ${context.memories.length} memories.`,
        messages: [{ role: 'user', content: { type: 'text', text } }],
      };
    },
  );
}
