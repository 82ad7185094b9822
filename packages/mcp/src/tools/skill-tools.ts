import { type ActivatedSkill, formatForPrompt, type Skill } from '@agentmem/core';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import * as z from 'zod';
import { defineTool } from '../server/define-tool';
import type { ServerContext } from '../server/server-context';
import { skillUri } from '../server/uris';

const skillOut = z.object({
  name: z.string(),
  description: z.string(),
  uri: z.string().describe('Read the full skill as this resource.'),
  globPatterns: z.array(z.string()),
  triggerKeywords: z.array(z.string()),
  toolsAllowed: z.array(z.string()),
  importance: z.number(),
  tags: z.array(z.string()),
  alwaysApply: z.boolean(),
});

const activatedOut = z.object({
  name: z.string(),
  score: z.number(),
  activatedBy: z.string().describe('semantic, keyword, glob, combined or always.'),
  signals: z.object({
    semantic: z
      .object({
        score: z.number(),
        cosine: z.number(),
        dense: z.number().optional().describe('The dense part (cosine on the semantic range), 0..1.'),
        lexical: z.number().optional().describe('The library-aware lexical part (BM25), 0..1.'),
        denseRank: z.number().optional(),
        keywordRank: z.number().optional(),
      })
      .optional(),
    keyword: z
      .object({ score: z.number(), matched: z.array(z.string()), source: z.enum(['declared', 'derived']).optional() })
      .optional(),
    glob: z
      .object({
        score: z.number(),
        paths: z.array(z.string()),
        patterns: z.array(z.string()),
        matches: z
          .array(z.object({ path: z.string(), pattern: z.string(), specificity: z.string() }))
          .optional()
          .describe('Which file matched which glob; a catch-all is no evidence.'),
      })
      .optional(),
  }),
});

export function toSkillOut(s: Skill): z.output<typeof skillOut> {
  return {
    name: s.name,
    description: s.description,
    uri: skillUri(s.name),
    globPatterns: s.globPatterns,
    triggerKeywords: s.triggerKeywords,
    toolsAllowed: s.toolsAllowed,
    importance: s.importance,
    tags: s.tags,
    alwaysApply: s.alwaysApply,
  };
}

function toActivatedOut(a: ActivatedSkill): z.output<typeof activatedOut> {
  const { semantic, keyword, glob } = a.signals;
  return {
    name: a.skill.name,
    score: a.score,
    activatedBy: a.activatedBy,
    signals: {
      ...(semantic
        ? {
            semantic: {
              score: semantic.score,
              cosine: semantic.cosine,
              ...(semantic.dense !== undefined ? { dense: semantic.dense } : {}),
              ...(semantic.lexical !== undefined ? { lexical: semantic.lexical } : {}),
              ...(semantic.denseRank !== undefined ? { denseRank: semantic.denseRank } : {}),
              ...(semantic.keywordRank !== undefined ? { keywordRank: semantic.keywordRank } : {}),
            },
          }
        : {}),
      ...(keyword ? { keyword: { ...keyword } } : {}),
      ...(glob ? { glob: { ...glob } } : {}),
    },
  };
}

export function registerSkillTools(server: McpServer, ctx: ServerContext): void {
  const { memory } = ctx;

  defineTool(
    server,
    ctx,
    'activate_skills',
    {
      title: 'Activate skills',
      description:
        'The skills that apply to a task: give the user message and the file being worked on; returns the matching skills (why each fired) and their instructions rendered as Markdown to follow.',
      inputSchema: {
        message: z.string().describe('The task or user message.'),
        filePath: z.string().optional().describe('The file being worked on (activates skills by glob).'),
        files: z.array(z.string()).optional().describe('The files being worked on (activate skills by glob).'),
        k: z
          .number()
          .int()
          .min(0)
          .max(20)
          .optional()
          .describe('At most this many skills besides always-on ones; default 3.'),
      },
      outputSchema: {
        skills: z.array(activatedOut),
        rendered: z.string().describe('The active skills as Markdown ("## Active skills"), empty when none apply.'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args) => {
      const activated = await memory.skills.activate(args.message, {
        ...(args.filePath !== undefined ? { filePath: args.filePath } : {}),
        ...(args.files !== undefined ? { files: args.files } : {}),
        ...(args.k !== undefined ? { k: args.k } : {}),
      });
      return {
        summary:
          activated.length === 0
            ? 'No skill applies.'
            : `Active: ${activated.map((a) => `${a.skill.name} (${a.activatedBy})`).join(', ')}.`,
        structured: { skills: activated.map(toActivatedOut), rendered: formatForPrompt(activated) },
      };
    },
  );

  defineTool(
    server,
    ctx,
    'load_skill',
    {
      title: 'Load a skill',
      description:
        "A skill's full instructions by name, rendered as Markdown to follow: catalog mode, where the prompt lists skills by name and description and you read the one the task needs.",
      inputSchema: { name: z.string().min(1).describe('The skill name, as list_skills or the catalog gives it.') },
      outputSchema: {
        name: z.string(),
        found: z.boolean(),
        instructions: z.string().describe('The skill rendered as Markdown; empty when there is no such skill.'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args) => {
      const skill = await memory.skills.get(args.name);
      if (!skill) {
        return {
          summary: `No skill named ${JSON.stringify(args.name)}; list_skills gives the names.`,
          structured: { name: args.name, found: false, instructions: '' },
        };
      }
      return {
        summary: `Instructions of ${skill.name}.`,
        structured: { name: skill.name, found: true, instructions: await memory.skills.instructions(skill.name) },
      };
    },
  );

  defineTool(
    server,
    ctx,
    'list_skills',
    {
      title: 'List skills',
      description:
        'Every registered skill with its description and triggers; read one in full as its skill:// resource.',
      inputSchema: {},
      outputSchema: { skills: z.array(skillOut) },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async () => {
      const skills = await memory.skills.list();
      return {
        summary: skills.length === 0 ? 'No skills registered.' : `${skills.length} skills.`,
        structured: { skills: skills.map(toSkillOut) },
      };
    },
  );
}
