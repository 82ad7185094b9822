import { AgentMemoryError } from '@agentmem/core';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, RequestId, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type * as z from 'zod';
import type { ServerContext } from './server-context';

export interface ToolDefinition<I extends z.ZodRawShape, O extends z.ZodRawShape> {
  title: string;
  description: string;
  inputSchema: I;
  outputSchema: O;
  annotations: ToolAnnotations;
}

/** What a tool returns: structured content (matching its output schema) and a line for people and models. */
export interface ToolOutput<O extends z.ZodRawShape> {
  structured: z.output<z.ZodObject<O>>;
  summary: string;
}

/**
 * Registers a tool whose failures come back as MCP tool errors (`isError`)
 * carrying the message core produced and its code in `_meta`, so a bad call
 * never takes the server down.
 */
export function defineTool<I extends z.ZodRawShape, O extends z.ZodRawShape>(
  server: McpServer,
  ctx: ServerContext,
  name: string,
  definition: ToolDefinition<I, O>,
  run: (args: z.output<z.ZodObject<I>>) => Promise<ToolOutput<O>>,
): void {
  const handler = async (args: z.output<z.ZodObject<I>>, extra: { requestId: RequestId }): Promise<CallToolResult> => {
    try {
      await ctx.beforeRequest(extra.requestId);
      const { structured, summary } = await run(args);
      return {
        content: [{ type: 'text', text: `${summary}\n\n${JSON.stringify(structured, null, 2)}` }],
        structuredContent: structured as Record<string, unknown>,
      };
    } catch (error) {
      return toolError(ctx, name, error);
    }
  };
  // The SDK's generic callback type does not follow our generic shapes; the schemas above are the contract.
  server.registerTool(name, definition, handler as never);
}

export function toolError(ctx: ServerContext, tool: string, error: unknown): CallToolResult {
  const known = AgentMemoryError.isInstance(error);
  const message = error instanceof Error ? error.message : String(error);
  // Unexpected errors are bugs: keep their stack for the operator (stderr; stdout is the protocol).
  if (!known) ctx.log(`tool ${tool} failed: ${error instanceof Error ? (error.stack ?? message) : message}`);
  return {
    isError: true,
    content: [{ type: 'text', text: message }],
    _meta: { 'agentmem/code': known ? error.code : 'INTERNAL' },
  };
}
