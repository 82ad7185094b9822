import type { Dirent } from 'node:fs';
import { readdir, realpath, stat } from 'node:fs/promises';
import { basename, dirname, join, relative, sep } from 'node:path';
import type { JsonObject, JsonValue } from '../contracts';
import { AgentMemoryError } from '../errors';
import { parseFrontmatter } from './frontmatter';
import { readSkillFile } from './read-skill-file';
import type { SkillFormat, SkillInput, SkillProblem } from './skill';
import { validateSkillInput, validateSkillName } from './validate';

export interface LoadSkillsResult {
  /** Skills ready for `register`, in path order; `source.path` is relative to the loaded directory. */
  skills: SkillInput[];
  problems: SkillProblem[];
}

export interface ParseSkillResult {
  /** Absent when the file cannot be a skill (the reason is in `problems`). */
  skill?: SkillInput;
  problems: SkillProblem[];
}

/** Keys whose values are globs: YAML reads an unquoted `*.ts` as an alias, so they are quoted first. */
const GLOB_KEYS = ['globs', 'paths', 'glob_patterns', 'globPatterns'];
const SKIPPED_DIRS = new Set(['node_modules', '.git']);

/**
 * Reads every skill under a directory, in all supported formats:
 * `*.md` at the top with skill frontmatter (agentmem; plain Markdown such as
 * CHANGELOG.md is reported as skipped), `<name>/SKILL.md` (Agent Skills,
 * also under `.claude/skills/`), `.claude/rules/**\/*.md` (Claude Code rules)
 * and `.cursor/rules/**\/*.mdc` (Cursor rules). A path to one file or to a
 * rules directory works too. A bad file becomes a problem; the others load.
 */
export async function loadSkills(dir: string): Promise<LoadSkillsResult> {
  const info = await stat(dir).catch(() => undefined);
  if (!info) {
    throw new AgentMemoryError('NOT_FOUND', `No skills directory or file at ${dir}. Check the path.`, {
      details: { path: dir },
    });
  }
  const root = info.isDirectory() ? dir : dirname(dir);
  const files = info.isDirectory() ? await discover(dir) : [{ path: dir, format: formatOfFile(dir) }];
  const result: LoadSkillsResult = { skills: [], problems: [] };
  const seen = new Map<string, string>();
  for (const file of files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
    let text: string;
    try {
      const read = await readSkillFile(file.path, root);
      if (!read.ok) {
        result.problems.push({ path: file.path, severity: 'error', reason: `${read.reason}.` });
        continue;
      }
      text = read.text;
    } catch (error) {
      result.problems.push({
        path: file.path,
        severity: 'error',
        reason: `cannot be read: ${(error as Error).message}`,
      });
      continue;
    }
    if (info.isDirectory() && file.format === 'agentmem' && !hasSkillFrontmatter(text)) {
      result.problems.push({ path: file.path, severity: 'skipped', reason: NOT_A_SKILL });
      continue;
    }
    const rel = relative(root, file.path).split(sep).join('/') || basename(file.path);
    const parsed = parseSkillFile(text, {
      path: file.path,
      format: file.format,
      defaultName: defaultName(file.path, file.format),
    });
    result.problems.push(...parsed.problems);
    if (!parsed.skill) continue;
    const earlier = seen.get(parsed.skill.name);
    if (earlier !== undefined) {
      result.problems.push({
        path: file.path,
        severity: 'error',
        reason: `skill name "${parsed.skill.name}" is already used by ${earlier}; rename one of them (this file was skipped).`,
      });
      continue;
    }
    seen.set(parsed.skill.name, file.path);
    result.skills.push({ ...parsed.skill, source: { path: rel, format: file.format } });
  }
  return result;
}

const NOT_A_SKILL =
  'plain Markdown without skill frontmatter, not loaded (a skill starts with "---", a description: line and "---").';
/** Keys that make a top-level Markdown file's frontmatter a skill's (agentmem's own, or a name or description). */
const SKILL_KEYS =
  /^(name|description|trigger_keywords|triggerKeywords|glob_patterns|globPatterns|always_apply|alwaysApply|tools_allowed|toolsAllowed|importance)\s*:/m;

/**
 * Whether a top-level `*.md` is a skill rather than a CHANGELOG or a
 * CONTRIBUTING guide: it opens with frontmatter naming a skill key. Only
 * the opening block is looked at; parsing it stays with `parseSkillFile`.
 */
export function hasSkillFrontmatter(text: string): boolean {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  if (!/^---[ \t]*$/.test(lines[0] ?? '')) return false;
  const close = lines.findIndex((l, i) => i > 0 && /^---[ \t]*$/.test(l));
  return close > 0 && SKILL_KEYS.test(lines.slice(1, close).join('\n'));
}

/** The format a single file is in, judged by its name and place. */
export function formatOfFile(path: string): SkillFormat {
  const p = path.split(sep).join('/');
  if (p.endsWith('.mdc')) return 'cursor-rules';
  if (basename(p) === 'SKILL.md') return 'agent-skills';
  if (/(^|\/)\.claude\/rules\//.test(p)) return 'claude-rules';
  return 'agentmem';
}

async function discover(dir: string): Promise<{ path: string; format: SkillFormat }[]> {
  const norm = dir.split(sep).join('/').replace(/\/+$/, '');
  if (/(^|\/)\.claude\/rules$/.test(norm))
    return (await walk(dir, '.md')).map((path) => ({ path, format: 'claude-rules' }));
  if (/(^|\/)\.cursor\/rules$/.test(norm))
    return (await walk(dir, '.mdc')).map((path) => ({ path, format: 'cursor-rules' }));
  const found: { path: string; format: SkillFormat }[] = [];
  const entries = await readdir(dir, { withFileTypes: true });
  const kinds = await Promise.all(entries.map((e) => kindOf(dir, e)));
  if (entries.some((e, i) => kinds[i] === 'file' && e.name === 'SKILL.md')) {
    // The directory is itself one Agent Skills folder.
    return [{ path: join(dir, 'SKILL.md'), format: 'agent-skills' }];
  }
  for (const [i, e] of entries.entries()) {
    if (kinds[i] === 'file' && e.name.endsWith('.md') && e.name.toLowerCase() !== 'readme.md') {
      found.push({ path: join(dir, e.name), format: 'agentmem' });
    } else if (kinds[i] === 'dir' && !e.name.startsWith('.') && !SKIPPED_DIRS.has(e.name)) {
      found.push(...(await skillFolders(join(dir, e.name), true)));
    }
  }
  found.push(...(await skillFolders(join(dir, '.claude', 'skills'), false)));
  found.push(
    ...(await walk(join(dir, '.claude', 'rules'), '.md')).map((path) => ({ path, format: 'claude-rules' as const })),
  );
  found.push(
    ...(await walk(join(dir, '.cursor', 'rules'), '.mdc')).map((path) => ({ path, format: 'cursor-rules' as const })),
  );
  return found;
}

/** `<dir>/SKILL.md` when `self`, else `<dir>/<name>/SKILL.md` for each child. */
async function skillFolders(dir: string, self: boolean): Promise<{ path: string; format: SkillFormat }[]> {
  const children = self ? [] : await readdir(dir, { withFileTypes: true }).catch(() => []);
  const kinds = await Promise.all(children.map((e) => kindOf(dir, e)));
  const candidates = self
    ? [join(dir, 'SKILL.md')]
    : children.filter((_, i) => kinds[i] === 'dir').map((e) => join(dir, e.name, 'SKILL.md'));
  const out: { path: string; format: SkillFormat }[] = [];
  for (const path of candidates) {
    if ((await stat(path).catch(() => undefined))?.isFile()) out.push({ path, format: 'agent-skills' });
  }
  return out;
}

async function walk(dir: string, ext: string, visited = new Set<string>()): Promise<string[]> {
  // Linked directories are followed once each, so a link back up cannot loop.
  const real = await realpath(dir).catch(() => undefined);
  if (real === undefined || visited.has(real)) return [];
  visited.add(real);
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const out: string[] = [];
  for (const e of entries) {
    const path = join(dir, e.name);
    const kind = await kindOf(dir, e);
    if (kind === 'dir' && !SKIPPED_DIRS.has(e.name)) out.push(...(await walk(path, ext, visited)));
    else if (kind === 'file' && e.name.endsWith(ext)) out.push(path);
  }
  return out;
}

/**
 * What an entry is, following symbolic links (shared rules are often linked
 * in). A broken link counts as a file, so that reading it reports the problem.
 */
async function kindOf(dir: string, e: Dirent): Promise<'file' | 'dir' | undefined> {
  if (e.isFile()) return 'file';
  if (e.isDirectory()) return 'dir';
  if (!e.isSymbolicLink()) return undefined;
  const info = await stat(join(dir, e.name)).catch(() => undefined);
  if (!info) return 'file';
  return info.isDirectory() ? 'dir' : info.isFile() ? 'file' : undefined;
}

function defaultName(path: string, format: SkillFormat): string {
  if (format === 'agent-skills') return basename(dirname(path));
  const file = basename(path).replace(/\.(md|mdc)$/, '');
  if (format === 'claude-rules' || format === 'cursor-rules') {
    // Nested rules (`.claude/rules/frontend/react.md`) keep their folder: `frontend/react`.
    const norm = path.split(sep).join('/');
    const marker = format === 'claude-rules' ? '.claude/rules/' : '.cursor/rules/';
    const at = norm.lastIndexOf(marker);
    if (at >= 0) return norm.slice(at + marker.length).replace(/\.(md|mdc)$/, '');
  }
  return file;
}

/**
 * Parses one skill file. Tolerates what real files contain: a BOM, CRLF line
 * endings, no frontmatter at all, unquoted globs (`globs: *.ts, *.tsx`).
 */
export function parseSkillFile(
  raw: string,
  options: { path: string; format: SkillFormat; defaultName: string },
): ParseSkillResult {
  const { path, format } = options;
  const problems: SkillProblem[] = [];
  const problem = (severity: SkillProblem['severity'], reason: string, line?: number) =>
    problems.push({ path, severity, reason, ...(line !== undefined ? { line } : {}) });

  const text = raw.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
  const lines = text.split('\n');
  const opensMatter = /^---[ \t]*$/.test(lines[0] ?? '');
  if (!opensMatter && /^---\S/.test(lines[0] ?? '') && !/^----/.test(lines[0] ?? '')) {
    problem('error', 'only YAML frontmatter is supported (found a language after "---").', 1);
    return { problems };
  }
  let closeLine = -1;
  if (opensMatter) {
    closeLine = lines.findIndex((l, i) => i > 0 && /^---[ \t]*$/.test(l));
    if (closeLine < 0) {
      problem('error', 'the frontmatter opened on line 1 is never closed: add a line "---" after it.', 1);
      return { problems };
    }
  }
  const keyLine = (key: string): number | undefined => {
    const i = lines.findIndex((l, idx) => idx > 0 && idx < closeLine && new RegExp(`^${escapeRe(key)}\\s*:`).test(l));
    return i >= 0 ? i + 1 : undefined;
  };

  let data: Record<string, unknown> = {};
  let body = text;
  if (opensMatter) {
    const prepared = [...lines];
    quoteGlobValues(prepared, closeLine);
    const parsed = parseFrontmatter(prepared.slice(1, closeLine).join('\n'), 2);
    if (!parsed.ok) {
      problem('error', `${parsed.reason}.`, parsed.line);
      return { problems };
    }
    data = parsed.data;
    body = lines.slice(closeLine + 1).join('\n');
  }

  const fields = new Fields(toJson(data) as JsonObject, (reason, key) =>
    problem('warning', reason, key ? keyLine(key) : undefined),
  );
  const content = body.trim();
  if (content === '') {
    problem(
      'error',
      'has no instructions (the body after the frontmatter is empty).',
      closeLine >= 0 ? closeLine + 1 : 1,
    );
    return { problems };
  }

  const skill: SkillInput = { name: options.defaultName, content };
  const metadata: JsonObject = {};
  const spec = format === 'agent-skills' ? fields.stringMap('metadata') : {};

  const name = fields.string('name');
  if (name !== undefined && name.trim() !== '') skill.name = name.trim();
  if (format === 'agent-skills' && name !== undefined && name.trim() !== options.defaultName) {
    problem(
      'warning',
      `name "${name}" differs from its folder "${options.defaultName}" (the Agent Skills spec wants them equal).`,
      keyLine('name'),
    );
  }
  const description = fields.string('description')?.trim();
  skill.description = description || firstLine(content);
  if (format === 'agent-skills' && !description) {
    problem(
      'warning',
      'has no description (Agent Skills require one: it says when to use the skill); the first line is used.',
      opensMatter ? 1 : undefined,
    );
  }

  if (format === 'agent-skills') {
    const tools = fields.toolList('allowed-tools');
    if (tools) skill.toolsAllowed = tools;
  }
  if (format === 'claude-rules') {
    const paths = fields.globList('paths') ?? fields.globList('globs');
    if (paths && paths.length > 0) skill.globPatterns = paths;
    // Claude Code loads a rule without `paths` for every task.
    else skill.alwaysApply = true;
  }
  if (format === 'cursor-rules') {
    const globs = fields.globList('globs');
    if (globs) skill.globPatterns = globs;
    const always = fields.take('alwaysApply');
    if (always === true) skill.alwaysApply = true;
    else if (always !== undefined && always !== false && always !== null) {
      problem(
        'warning',
        `alwaysApply is ${JSON.stringify(always)}, not the boolean true; Cursor treats it as false and so does agentmem (write alwaysApply: true).`,
        keyLine('alwaysApply'),
      );
    }
  }
  // agentmem's own fields: every format may carry them (Agent Skills in its string-valued `metadata`).
  const own = new Fields(spec, (reason, key) => problem('warning', reason, key ? keyLine('metadata') : undefined));
  for (const source of format === 'agent-skills' ? [fields, own] : [fields]) {
    const globs = source.globList('glob_patterns') ?? source.globList('globPatterns');
    if (globs) skill.globPatterns = [...(skill.globPatterns ?? []), ...globs];
    const keywords = source.list('trigger_keywords') ?? source.list('triggerKeywords');
    if (keywords) skill.triggerKeywords = keywords;
    const tools = source.list('tools_allowed') ?? source.list('toolsAllowed');
    if (tools) skill.toolsAllowed = [...(skill.toolsAllowed ?? []), ...tools];
    const tags = source.list('tags');
    if (tags) skill.tags = tags;
    const importance = source.importance('importance');
    if (importance !== undefined) skill.importance = importance;
    // Cursor's own alwaysApply was read above, with Cursor's rules.
    const always =
      source.boolean('always_apply', source === own) ??
      (format === 'cursor-rules' && source === fields ? undefined : source.boolean('alwaysApply', source === own));
    if (always !== undefined) skill.alwaysApply = always;
  }
  Object.assign(metadata, fields.rest());
  if (format === 'agent-skills' && Object.keys(own.rest()).length > 0) metadata.metadata = own.rest();
  if (Object.keys(metadata).length > 0) skill.metadata = metadata;
  // What register() would refuse is reported here, so that one such file does not fail a whole load.
  for (const [check, line] of [
    [() => validateSkillName(skill.name), keyLine('name')],
    [() => validateSkillInput(skill), undefined],
  ] as const) {
    try {
      check();
    } catch (error) {
      if (!AgentMemoryError.hasCode(error, 'INVALID_INPUT')) throw error;
      problem('error', `${(error as Error).message} (this file was skipped)`, line);
      return { problems };
    }
  }
  return { skill, problems };
}

/**
 * Reads frontmatter fields one by one; what is never read stays for
 * `rest()` (kept as the skill's metadata). A wrong type is reported and the
 * field ignored.
 */
class Fields {
  private readonly data: JsonObject;
  private readonly used = new Set<string>();

  constructor(
    data: JsonObject,
    private readonly warn: (reason: string, key?: string) => void,
  ) {
    this.data = data;
  }

  take(key: string): JsonValue | undefined {
    if (!(key in this.data)) return undefined;
    this.used.add(key);
    return this.data[key];
  }

  string(key: string): string | undefined {
    const v = this.take(key);
    if (v === undefined || v === null) return undefined;
    if (typeof v === 'string') return v;
    if (typeof v === 'number' || typeof v === 'boolean') return String(v);
    this.warn(`${key} should be text; it was ignored.`, key);
    return undefined;
  }

  /** A YAML list or a comma-separated string (also a JSON array written as a string). */
  list(key: string): string[] | undefined {
    const v = this.take(key);
    if (v === undefined || v === null) return undefined;
    if (typeof v === 'string') {
      const s = v.trim();
      if (s.startsWith('[')) {
        try {
          const parsed = JSON.parse(s) as unknown;
          if (Array.isArray(parsed) && parsed.every((x) => typeof x === 'string')) return clean(parsed);
        } catch {
          // not JSON: read it as a comma list below
        }
      }
      return clean(splitTopLevel(s.replace(/^\[|\]$/g, ''), ','));
    }
    if (Array.isArray(v) && v.every((x) => typeof x === 'string' || typeof x === 'number')) return clean(v.map(String));
    this.warn(`${key} should be a list of strings or a comma-separated string; it was ignored.`, key);
    return undefined;
  }

  globList(key: string): string[] | undefined {
    return this.list(key);
  }

  /** `allowed-tools`: a list, or a string separated by commas or (Agent Skills spec) spaces. */
  toolList(key: string): string[] | undefined {
    const v = this.data[key];
    if (typeof v === 'string' && !v.includes(',')) {
      this.used.add(key);
      return clean(splitTopLevel(v.trim(), ' '));
    }
    return this.list(key);
  }

  importance(key: string): number | undefined {
    const v = this.take(key);
    if (v === undefined || v === null) return undefined;
    const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
    if (typeof n === 'number' && Number.isFinite(n) && n >= 0 && n <= 1) return n;
    this.warn(`importance should be a number from 0 to 1, got ${JSON.stringify(v)}; the default 0.7 is used.`, key);
    return undefined;
  }

  /** A YAML boolean; in a string map (`stringValued`) also "true"/"false". */
  boolean(key: string, stringValued: boolean): boolean | undefined {
    const v = this.take(key);
    if (v === undefined || v === null) return undefined;
    if (typeof v === 'boolean') return v;
    if (stringValued && (v === 'true' || v === 'false')) return v === 'true';
    this.warn(`${key} should be true or false, got ${JSON.stringify(v)}; it was ignored.`, key);
    return undefined;
  }

  /** A nested mapping (Agent Skills `metadata`), or {} with a warning. */
  stringMap(key: string): JsonObject {
    const v = this.take(key);
    if (v === undefined || v === null) return {};
    if (typeof v === 'object' && !Array.isArray(v)) return v;
    this.warn(`${key} should be a mapping of key: value pairs; it was ignored.`, key);
    return {};
  }

  /** Fields nobody read, as they were. */
  rest(): JsonObject {
    return Object.fromEntries(Object.entries(this.data).filter(([k]) => !this.used.has(k)));
  }
}

/**
 * Quotes the values of glob keys (`globs: *.ts, *.tsx`, `- **\/*.py`,
 * `globs: [*.ts]`) so that YAML does not read `*` as an alias; the list
 * readers split the quoted string again. Line numbers do not change.
 */
function quoteGlobValues(lines: string[], closeLine: number): void {
  let listIndent = -1;
  for (let i = 1; i < closeLine; i++) {
    const line = lines[i]!;
    const keyed = /^(\s*)([A-Za-z_-]+)(\s*:\s*)(.*)$/.exec(line);
    if (keyed && !/^\s*-/.test(line)) {
      const [, indent, key, colon, value] = keyed as unknown as [string, string, string, string, string];
      listIndent = GLOB_KEYS.includes(key) ? indent.length : -1;
      if (listIndent >= 0 && needsQuotes(value)) lines[i] = `${indent}${key}${colon}${quote(value.trim())}`;
      continue;
    }
    const item = /^(\s*-\s+)(.*)$/.exec(line);
    if (listIndent >= 0 && item && needsQuotes(item[2]!)) lines[i] = `${item[1]}${quote(item[2]!.trim())}`;
    else if (!item && line.trim() !== '') listIndent = -1;
  }
}

/** Plain values, and flow lists closed on the same line; not already quoted or block scalars. */
function needsQuotes(value: string): boolean {
  const v = value.trim();
  if (v === '' || /^["'|>]/.test(v)) return false;
  return !v.startsWith('[') || v.endsWith(']');
}

function quote(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}

/** Splits on a separator outside braces and parentheses (`*.{ts,tsx}`, `Bash(git add:*)`). */
function splitTopLevel(text: string, separator: ',' | ' '): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of text) {
    if (ch === '{' || ch === '(') depth++;
    else if ((ch === '}' || ch === ')') && depth > 0) depth--;
    if (depth === 0 && (separator === ' ' ? /\s/.test(ch) : ch === separator)) {
      parts.push(current);
      current = '';
    } else current += ch;
  }
  parts.push(current);
  return parts;
}

function clean(values: readonly string[]): string[] {
  return [...new Set(values.map((v) => v.trim().replace(/^["']|["']$/g, '')).filter((v) => v !== ''))];
}

/** The first heading or line of the body, as a one-line description. */
function firstLine(content: string): string {
  const line = content.split('\n').find((l) => l.trim() !== '' && !/^```/.test(l.trim())) ?? '';
  const text = line.replace(/^#+\s*/, '').trim();
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
}

/** YAML values as JSON (dates as ISO strings), so metadata can be stored anywhere. */
function toJson(value: unknown): JsonValue {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (Array.isArray(value)) return value.map(toJson);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toJson(v)]));
  }
  if (typeof value === 'number' && !Number.isFinite(value)) return null;
  if (value === undefined) return null;
  return value as JsonValue;
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
