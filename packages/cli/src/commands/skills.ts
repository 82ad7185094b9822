import { existsSync, readFileSync, statSync } from 'node:fs';
import { extname, resolve } from 'node:path';
import {
  type ActivatedSkill,
  AgentMemoryError,
  type ActivationExplanation,
  formatForPrompt,
  formatOfFile,
  hasSkillFrontmatter,
  loadSkills,
  type Skill,
  type SkillProblem,
} from '@agentmem/core';
import type { Command } from 'commander';
import { type CliContext, refuseSpecialFile } from '../context';
import { CliError } from '../errors';
import { type Column, counted } from '../output';
import { wholeNumber } from '../parse';

// k = 0 is meaningful here (only alwaysApply skills), so the shared positive-int parser does not fit.
const parseNonNegativeInt = wholeNumber(0, Number.MAX_SAFE_INTEGER, 'Expected a whole number (0 or more).');

/** "semantic 0.74 (cos 0.38) · keyword container · glob Dockerfile": which signals fired and how. */
export function formatSkillSignals(signals: ActivatedSkill['signals']): string {
  const parts: string[] = [];
  const s = signals.semantic;
  if (s)
    parts.push(
      `semantic ${s.score.toFixed(2)} (cos ${s.cosine.toFixed(2)}${s.lexical ? `, bm25 ${s.lexical.toFixed(2)}` : ''})`,
    );
  if (signals.keyword)
    parts.push(`keyword ${signals.keyword.matched.join(', ')}${signals.keyword.source === 'derived' ? ' (name)' : ''}`);
  if (signals.glob) {
    const matches = signals.glob.matches;
    parts.push(
      matches
        ? `glob ${matches.map((m) => `${m.path} ~ ${m.byName ? `name ${m.pattern}` : m.pattern} (${m.specificity})`).join(', ')}`
        : `glob ${signals.glob.paths.join(', ')}`,
    );
  }
  return parts.join(' · ') || '-';
}

export const ACTIVATED_COLUMNS: readonly Column[] = [
  { key: 'skill', max: 30 },
  { key: 'score', align: 'right' },
  { key: 'by' },
  { key: 'signals', max: 70 },
];

export function activatedRows(activated: readonly ActivatedSkill[]) {
  return activated.map((a) => ({
    skill: a.skill.name,
    score: a.score,
    by: a.activatedBy,
    signals: formatSkillSignals(a.signals),
  }));
}

export function activatedJson(activated: readonly ActivatedSkill[]) {
  return activated.map((a) => ({
    name: a.skill.name,
    score: a.score,
    activatedBy: a.activatedBy,
    signals: a.signals,
  }));
}

export const EXPLAIN_COLUMNS: readonly Column[] = [
  { key: 'skill', max: 30 },
  { key: 'score', align: 'right' },
  { key: 'status' },
  { key: 'signals', max: 90 },
  { key: 'reason', max: 50 },
];

/** Every candidate of `skills.explain`, with its signals and why it was left out. */
export function explainRows(explained: ActivationExplanation) {
  return explained.candidates.map((c) => ({
    skill: c.name,
    score: c.score,
    status: c.status,
    signals: formatSkillSignals(c.signals),
    reason: c.reason ?? '',
  }));
}

export function explainJson(explained: ActivationExplanation) {
  return {
    paths: explained.paths,
    pathsFromMessage: explained.pathsFromMessage,
    candidates: explained.candidates.map(({ entry: _entry, ...rest }) => rest),
  };
}

export const SKILL_COLUMNS: readonly Column[] = [
  { key: 'name', max: 30 },
  { key: 'format' },
  { key: 'keywords', max: 30 },
  { key: 'globs', max: 30 },
  { key: 'description', max: 60 },
];

export function skillRows(skills: readonly Skill[]) {
  return skills.map((s) => ({
    name: s.name,
    format: s.source?.format ?? 'api',
    keywords: s.alwaysApply ? '(always)' : s.triggerKeywords.join(', '),
    globs: s.globPatterns.join(', '),
    description: s.description,
  }));
}

/** `path:line: severity: reason`, the form editors and CI annotate. */
export function problemLine(p: SkillProblem): string {
  return `${p.path}${p.line !== undefined ? `:${p.line}` : ''}: ${p.severity}: ${p.reason}`;
}

/** The four formats a skill file can be in (docs/skills.md). */
export const SKILL_FILE_FORMATS =
  'A skill file is UTF-8 Markdown in one of four formats (docs/skills.md): an agentmem skill (a .md file that opens with frontmatter: ---, description: ..., ---), an Agent Skills <name>/SKILL.md, a Claude Code rule (.claude/rules/**/*.md) or a Cursor rule (.cursor/rules/**/*.mdc).';

/** Refuses a single file given to `skills load` that yielded no skill, with its problems and the formats a skill can be. */
function refuseNoSkill(path: string, problems: readonly SkillProblem[]): never {
  const reasons = problems
    .map((p) => p.reason.replace(/\.$/, '').replace(/; a skill is UTF-8 Markdown$/, ''))
    .map((r) => (r.startsWith('is ') ? `it ${r}` : r))
    .join('; ');
  throw new AgentMemoryError(
    'INVALID_INPUT',
    `${path} is not a skill${reasons ? `: ${reasons}` : ''}. Nothing was loaded. ${SKILL_FILE_FORMATS}`,
    { details: { path, problems } },
  );
}

/**
 * Why one file given to `skills load` is no skill file, or undefined: a SKILL.md, a Cursor rule (.mdc)
 * and a Claude Code rule (.md under .claude/rules) are skill files by name and place; any other file is
 * one when it is Markdown that opens with skill frontmatter, as a top-level *.md of a directory must.
 * (The library reads a file it is handed as a skill whatever it holds: notes.txt would load.)
 */
function notASkillFile(path: string): string | undefined {
  const format = formatOfFile(resolve(path));
  const ext = extname(path).toLowerCase();
  if (format === 'agent-skills' || format === 'cursor-rules') return undefined;
  if (ext !== '.md') return `is ${ext ? `a ${ext} file` : 'a file without the .md extension'}, not Markdown`;
  if (format === 'claude-rules') return undefined;
  // loadSkills read it already, so it is text of a bounded size.
  return hasSkillFrontmatter(readFileSync(path, 'utf8')) ? undefined : 'is Markdown without skill frontmatter';
}

interface ActivateCommandOptions {
  file?: string[];
  k?: number;
  prompt?: boolean;
  explain?: boolean;
}

const SKILLS_PATH = 'Give a skills directory or one skill file.';

export function register(program: Command, ctx: CliContext): void {
  const skills = program
    .command('skills')
    .description('skills: Markdown instructions activated by the task (list, load, activate, lint, remove)');

  skills
    .command('list')
    .description('the skills registered in the store')
    .action(async () => {
      const memory = await ctx.openMemory({ mustExist: true });
      const list = await memory.skills.list();
      ctx.emit({ skills: list }, () =>
        ctx.table(skillRows(list), SKILL_COLUMNS, 'No skills registered. Load some with `agentmem skills load DIR`.'),
      );
    });

  skills
    .command('load')
    .description(
      'register the skills of a directory (agentmem *.md, <name>/SKILL.md, .claude/rules, .cursor/rules); same name replaces',
    )
    .argument('<dir>', 'directory (or one skill file)')
    .action(async (dir: string) => {
      refuseSpecialFile(resolve(dir), 'The skills path', SKILLS_PATH);
      // Checked before the store is opened, so a new --db is not created for a path that is not there.
      const stats = existsSync(dir) ? statSync(dir) : undefined; // existsSync: also false for a path through a file
      if (!stats) {
        throw new AgentMemoryError('NOT_FOUND', `No skills directory or file at ${dir}. Check the path.`, {
          details: { path: dir },
        });
      }
      // Read once, before the store opens: one file that is no skill is an error, not "Loaded 0 skills".
      const loaded = await loadSkills(dir);
      if (stats.isFile() && loaded.skills.length === 0) refuseNoSkill(dir, loaded.problems);
      const notSkill = stats.isFile() ? notASkillFile(dir) : undefined;
      if (notSkill) refuseNoSkill(dir, [{ path: dir, severity: 'skipped', reason: notSkill }]);
      const memory = await ctx.openMemory();
      const result = { ...(await memory.skills.registerMany(loaded.skills)), problems: loaded.problems };
      ctx.emit(
        {
          added: result.added,
          updated: result.updated,
          unchanged: result.unchanged,
          problems: result.problems,
          skills: result.skills.map((s) => ({ name: s.name, source: s.source })),
        },
        () => {
          ctx.print(
            `Loaded ${counted(result.skills.length, 'skill', 'skills')} from ${dir}: ${result.added.length} added, ${result.updated.length} updated, ${result.unchanged.length} unchanged.`,
          );
          if (result.skills.length > 0) ctx.table(skillRows(result.skills), SKILL_COLUMNS);
          for (const p of result.problems) ctx.note(problemLine(p));
          if (result.problems.length > 0)
            ctx.note(`${counted(result.problems.length, 'problem', 'problems')}; see \`agentmem skills lint ${dir}\`.`);
        },
      );
    });

  skills
    .command('activate')
    .description('which skills a message activates, with score and the signals that fired')
    .argument('<message>', 'the user message')
    .option('--file <path>', 'a file being worked on (repeatable)', (value: string, previous: string[] = []) => [
      ...previous,
      value,
    ])
    .option('-k, --k <n>', 'at most this many skills besides alwaysApply ones', parseNonNegativeInt, 3)
    .option('--prompt', 'also print the rendered "## Active skills" section')
    .option('--explain', 'show every candidate: each signal, and why a skill was left out')
    .action(async (message: string, options: ActivateCommandOptions) => {
      const memory = await ctx.openMemory({ mustExist: true });
      const activateOptions = { files: options.file ?? [], k: options.k };
      if (options.explain) {
        const explained = await memory.skills.explain(message, activateOptions);
        ctx.emit({ message, files: options.file ?? [], ...explainJson(explained) }, () => {
          if (explained.paths.length > 0) ctx.print(`Files: ${explained.paths.join(', ')}\n`);
          ctx.table(explainRows(explained), EXPLAIN_COLUMNS, `No skill has any signal for "${message}".`);
        });
        return;
      }
      const activated = await memory.skills.activate(message, activateOptions);
      const prompt = options.prompt ? formatForPrompt(activated) : undefined;
      ctx.emit(
        {
          message,
          files: options.file ?? [],
          activated: activatedJson(activated),
          ...(prompt !== undefined ? { prompt } : {}),
        },
        () => {
          ctx.table(activatedRows(activated), ACTIVATED_COLUMNS, `No skill activated for "${message}".`);
          if (prompt) ctx.print(`\n${prompt}`);
        },
      );
    });

  skills
    .command('lint')
    .description('check skill files without loading them; exit code 1 when there is any problem')
    .argument('<dir>', 'directory (or one skill file)')
    .action(async (dir: string) => {
      refuseSpecialFile(resolve(dir), 'The skills path', SKILLS_PATH);
      const { skills: found, problems } = await loadSkills(dir);
      // Plain Markdown skipped on purpose is reported, not a failure.
      if (problems.some((p) => p.severity !== 'skipped')) ctx.exitCode = 1;
      ctx.emit(
        {
          ok: !problems.some((p) => p.severity !== 'skipped'),
          skills: found.map((s) => ({ name: s.name, source: s.source })),
          problems,
        },
        () => {
          for (const p of problems) ctx.print(problemLine(p));
          const count = (severity: SkillProblem['severity']) => problems.filter((p) => p.severity === severity).length;
          const skipped = count('skipped') > 0 ? `, ${count('skipped')} skipped (not skills)` : '';
          const ok = `${counted(found.length, 'skill', 'skills')} OK`;
          ctx.print(
            problems.length > 0
              ? `${ok}; ${counted(count('error'), 'error', 'errors')}, ${counted(count('warning'), 'warning', 'warnings')}${skipped}.`
              : `${ok}, no problems.`,
          );
        },
      );
    });

  skills
    .command('remove')
    .description('unregister a skill by name')
    .argument('<name>', 'skill name')
    .action(async (name: string) => {
      const memory = await ctx.openMemory({ mustExist: true });
      const skill = await memory.skills.get(name);
      if (!skill) {
        throw new AgentMemoryError(
          'NOT_FOUND',
          `No skill named "${name}"; nothing was removed. See the names with \`agentmem skills list\`.`,
          { details: { name } },
        );
      }
      if (!(await ctx.confirm(`Remove skill "${name}"?`))) {
        throw new CliError('ABORTED', 'Not confirmed; nothing was changed.');
      }
      await memory.skills.unregister(name);
      ctx.emit({ removed: true, name }, () => ctx.print(`Removed skill "${name}".`));
    });
}
