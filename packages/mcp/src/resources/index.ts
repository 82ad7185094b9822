import { AgentMemoryError } from '@agentmem/core';
import { type McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { ServerContext } from '../server/server-context';
import {
  CURRENT_SESSION,
  SESSION_URI_TEMPLATE,
  SKILL_URI_TEMPLATE,
  STATS_URI,
  sessionUri,
  skillUri,
} from '../server/uris';
import { listSessions, sessionSummary } from './sessions';
import { skillToMarkdown } from './skill-markdown';

export { skillToMarkdown } from './skill-markdown';
export { listSessions, type SessionInfo, sessionSummary } from './sessions';

/** Stats, each skill (`skill://name`) and the session summaries (`session://id`, `session://current`). */
export function registerResources(server: McpServer, ctx: ServerContext): void {
  const { memory, config } = ctx;

  server.registerResource(
    'stats',
    STATS_URI,
    {
      title: 'Memory store stats',
      description: 'Active memories per namespace, inactive count, current tenant, branch and embedder.',
      mimeType: 'application/json',
    },
    async (uri, extra) => {
      await ctx.beforeRequest(extra.requestId);
      const stats = await memory.stats();
      const body = {
        store: config.qdrant
          ? { qdrant: config.qdrant.url, collection: config.qdrant.collection }
          : { sqlite: config.db },
        tenant: memory.tenant,
        branch: memory.branch,
        recallNamespaces: memory.recallNamespaces(),
        embedder: { id: memory.embedder.id, dimension: memory.embedder.dimension },
        skills: (await memory.skills.list()).length,
        ...stats,
      };
      return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(body, null, 2) }] };
    },
  );

  server.registerResource(
    'skill',
    new ResourceTemplate(SKILL_URI_TEMPLATE, {
      list: async () => ({
        resources: (await memory.skills.list()).map((s) => ({
          uri: skillUri(s.name),
          name: s.name,
          ...(s.description ? { description: s.description } : {}),
          mimeType: 'text/markdown',
        })),
      }),
      complete: {
        name: async (value) => (await memory.skills.list()).map((s) => s.name).filter((name) => name.startsWith(value)),
      },
    }),
    { title: 'Skill', description: 'A registered skill as Markdown with frontmatter.', mimeType: 'text/markdown' },
    async (uri, variables) => {
      const name = decode(variables.name);
      const skill = await guard(() => memory.skills.get(name));
      if (!skill)
        throw new McpError(
          ErrorCode.InvalidParams,
          `No skill named ${JSON.stringify(name)}. List them with list_skills.`,
        );
      return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text: skillToMarkdown(skill) }] };
    },
  );

  server.registerResource(
    'session',
    new ResourceTemplate(SESSION_URI_TEMPLATE, {
      // Listed: the summary session://current stands for (see docs/mcp.md).
      list: async () => {
        const current = await currentSession(ctx);
        return {
          resources: current
            ? [
                {
                  uri: sessionUri(CURRENT_SESSION),
                  name: `session ${current.sessionId}`,
                  description: `Running summary of session ${current.sessionId} (updated ${current.summary.updatedAt}).`,
                  mimeType: 'text/markdown',
                },
              ]
            : [],
        };
      },
    }),
    { title: 'Session summary', description: 'The running summary of a session.', mimeType: 'text/markdown' },
    async (uri, variables) => {
      const id = decode(variables.id);
      const found =
        id === CURRENT_SESSION
          ? await currentSession(ctx)
          : await guard(async () => {
              const summary = await sessionSummary(memory, id);
              return summary ? { sessionId: id, summary } : undefined;
            });
      if (!found) {
        throw new McpError(
          ErrorCode.InvalidParams,
          id === CURRENT_SESSION
            ? 'No session summary yet: the runtime middleware writes one after a few turns of a session.'
            : `No summary for session ${JSON.stringify(id)}.`,
        );
      }
      return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text: found.summary.content }] };
    },
  );
}

async function currentSession(ctx: ServerContext) {
  if (ctx.config.session !== undefined) {
    const summary = await sessionSummary(ctx.memory, ctx.config.session);
    return summary ? { sessionId: ctx.config.session, summary } : undefined;
  }
  return (await listSessions(ctx.memory))[0];
}

function decode(value: string | string[] | undefined): string {
  const raw = Array.isArray(value) ? value.join(',') : (value ?? '');
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** Core's input errors become protocol errors with core's message. */
async function guard<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (AgentMemoryError.isInstance(error)) throw new McpError(ErrorCode.InvalidParams, error.message);
    throw error;
  }
}
