import { AgentMemoryError } from '../errors';
import { isMemoryType, MEMORY_TYPES } from '../scope';
import type { SkillInput } from '../skills/skill';
import { validateSkillInput } from '../skills/validate';
import { editDistance } from '../text/edit-distance';
import { type EvalCase, type EvalSession, type EvalSuite, emptyCase } from './eval-suite';

/** A problem of a case file: its 1-based line, the field at fault (when one is), and what to do. */
export interface CaseFileError {
  line: number;
  field?: string;
  message: string;
}

/** A skill library a case names by path (`{"skills": "./rules"}`), read when the file is loaded. */
export interface SkillSourceLine {
  case: EvalCase;
  path: string;
  line: number;
}

export interface ParsedCaseFile {
  suite: EvalSuite;
  skillSources: SkillSourceLine[];
  errors: CaseFileError[];
}

/**
 * The fields of each kind of line. A line's kind is the one of these keys it
 * has (`case`, `session`, `speaker`, `memory`, `skills`, `skill`, `question`,
 * `message`); any other field is refused, so a typo (`expected`) is caught
 * rather than silently ignored.
 */
const KINDS = {
  case: ['case', 'now'],
  session: ['session', 'at', 'title'],
  speaker: ['speaker', 'text', 'id', 'at'],
  memory: ['memory', 'id', 'type', 'importance', 'tags', 'at', 'context'],
  skills: ['skills'],
  skill: ['skill'],
  question: ['question', 'expect', 'category'],
  message: ['message', 'files', 'expect', 'category'],
} as const satisfies Record<string, readonly string[]>;
type Kind = keyof typeof KINDS;

const SKILL_FIELDS = [
  'name',
  'content',
  'description',
  'globPatterns',
  'triggerKeywords',
  'toolsAllowed',
  'importance',
  'tags',
  'alwaysApply',
  'metadata',
];

/**
 * Reads a case file (JSONL, docs/eval.md): one JSON object per line, blank
 * lines and lines starting with `#` or `//` skipped. Every problem is
 * collected with its line and field; nothing is half-read.
 */
export function parseCaseFile(text: string, source: string): ParsedCaseFile {
  const errors: CaseFileError[] = [];
  const cases: EvalCase[] = [];
  const skillSources: SkillSourceLine[] = [];
  let current: EvalCase | undefined;
  let session: EvalSession | undefined;
  const caseNamed = (name: string, line: number) => {
    const c = emptyCase(name, line);
    cases.push(c);
    session = undefined;
    return c;
  };
  // Lines before the first `case` line form a case named after the file.
  const currentCase = (line: number) => {
    current ??= caseNamed(source, line);
    return current;
  };

  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  for (const [i, raw] of lines.entries()) {
    const line = i + 1;
    const trimmed = raw.trim();
    if (trimmed === '' || trimmed.startsWith('#') || trimmed.startsWith('//')) continue;
    let value: unknown;
    try {
      value = JSON.parse(trimmed);
    } catch (error) {
      errors.push({ line, message: `not JSON (${(error as Error).message}); write one JSON object per line.` });
      continue;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      errors.push({ line, message: 'not a JSON object; each line is one object such as {"question": …}.' });
      continue;
    }
    const obj = value as Record<string, unknown>;
    const kinds = (Object.keys(KINDS) as Kind[]).filter((k) => k in obj);
    if (kinds.length !== 1) {
      errors.push({
        line,
        message:
          kinds.length === 0
            ? `says neither of ${Object.keys(KINDS).join(', ')}: which kind of line is it?${hint(Object.keys(obj), Object.keys(KINDS))}`
            : `has ${kinds.join(' and ')}: one line is one thing (a turn, a memory, a question…).`,
      });
      continue;
    }
    const kind = kinds[0]!;
    const before = errors.length;
    const allowed: readonly string[] = KINDS[kind];
    // A field reported as misspelt ("expected") is not reported missing ("expect") as well.
    const misspelt = new Set<string>();
    for (const key of Object.keys(obj)) {
      if (allowed.includes(key)) continue;
      const near = nearest([key], allowed);
      if (near) misspelt.add(near);
      errors.push({
        line,
        field: key,
        message: `a ${kind} line has no field "${key}"; it takes ${allowed.join(', ')}.${near ? ` Did you mean "${near}"?` : ''}`,
      });
    }
    const read = new FieldReader(obj, line, errors, misspelt);
    switch (kind) {
      case 'case': {
        const name = read.text('case');
        const now = read.date('now');
        if (errors.length > before) break;
        current = caseNamed(name!, line);
        if (now) current.now = now;
        break;
      }
      case 'session': {
        const id = read.text('session');
        const at = read.date('at');
        const title = read.optionalText('title');
        if (errors.length > before) break;
        const c = currentCase(line);
        if (c.sessions.some((s) => s.id === id))
          errors.push({ line, field: 'session', message: `session "${id}" was already started in case "${c.name}".` });
        session = { id: id!, line, turns: [], ...(at ? { at } : {}), ...(title ? { title } : {}) };
        c.sessions.push(session);
        break;
      }
      case 'speaker': {
        const speaker = read.text('speaker');
        const text = read.text('text');
        const id = read.optionalText('id');
        const at = read.date('at');
        if (errors.length > before) break;
        const c = currentCase(line);
        if (!session) {
          // Turns before any session line are a session of their own.
          session = { id: `session_${c.sessions.length + 1}`, line, turns: [] };
          c.sessions.push(session);
        }
        session.turns.push({ line, speaker: speaker!, text: text!, ...(id ? { id } : {}), ...(at ? { at } : {}) });
        break;
      }
      case 'memory': {
        const content = read.text('memory');
        const id = read.optionalText('id');
        const type = read.optionalText('type') ?? 'user';
        if (!isMemoryType(type))
          errors.push({
            line,
            field: 'type',
            message: `unknown memory type "${type}"; use ${MEMORY_TYPES.join(', ')}.`,
          });
        const importance = read.fraction('importance');
        const tags = read.textList('tags');
        const at = read.date('at');
        const context = read.optionalText('context');
        if (errors.length > before) break;
        currentCase(line).memories.push({
          line,
          content: content!,
          type: type as EvalCase['memories'][number]['type'],
          ...(id ? { id } : {}),
          ...(importance !== undefined ? { importance } : {}),
          ...(tags ? { tags } : {}),
          ...(at ? { occurredAt: at } : {}),
          ...(context ? { context } : {}),
        });
        break;
      }
      case 'skills': {
        const path = read.text('skills');
        if (errors.length > before) break;
        skillSources.push({ case: currentCase(line), path: path!, line });
        break;
      }
      case 'skill': {
        const skill = obj.skill as SkillInput;
        if (typeof skill !== 'object' || skill === null || Array.isArray(skill)) {
          errors.push({ line, field: 'skill', message: 'give the skill as an object: {"name": …, "content": …}.' });
          break;
        }
        for (const key of Object.keys(skill))
          if (!SKILL_FIELDS.includes(key))
            errors.push({
              line,
              field: `skill.${key}`,
              message: `a skill has no field "${key}"; it takes ${SKILL_FIELDS.join(', ')}.${hint([key], SKILL_FIELDS)}`,
            });
        try {
          validateSkillInput(skill);
        } catch (error) {
          if (!AgentMemoryError.isInstance(error)) throw error;
          errors.push({ line, field: 'skill', message: error.message });
        }
        if (errors.length > before) break;
        currentCase(line).skills.push(skill);
        break;
      }
      case 'question': {
        const question = read.text('question');
        const expect = read.expect(false);
        const category = read.optionalText('category');
        if (errors.length > before) break;
        currentCase(line).questions.push({
          line,
          question: question!,
          expect: expect!,
          ...(category ? { category } : {}),
        });
        break;
      }
      case 'message': {
        const message = read.text('message');
        const files = read.textList('files', true) ?? [];
        const expect = read.expect(true);
        const category = read.optionalText('category');
        if (errors.length > before) break;
        currentCase(line).messages.push({
          line,
          message: message!,
          files,
          expect: expect!,
          ...(category ? { category } : {}),
        });
        break;
      }
    }
  }
  if (cases.length === 0 && errors.length === 0)
    errors.push({ line: 1, message: 'the file has no cases: write at least a memory and a question (docs/eval.md).' });
  for (const c of cases) checkCase(c, skillSources, errors);
  errors.sort((a, b) => a.line - b.line);
  return { suite: { source, cases, warnings: [] }, skillSources, errors };
}

/** What only the whole case can tell: ids that exist and are unique, something to ask and something to ask of. */
function checkCase(c: EvalCase, skillSources: readonly SkillSourceLine[], errors: CaseFileError[]): void {
  const ids = new Map<string, number>();
  const items = [...c.memories, ...c.sessions.flatMap((s) => s.turns)].sort((a, b) => a.line - b.line);
  for (const item of items) {
    if (item.id === undefined) continue;
    const first = ids.get(item.id);
    if (first !== undefined)
      errors.push({
        line: item.line,
        field: 'id',
        message: `id "${item.id}" is already used on line ${first} of case "${c.name}"; ids name one memory or turn.`,
      });
    else ids.set(item.id, item.line);
  }
  for (const q of c.questions) {
    if (items.length === 0) {
      errors.push({
        line: q.line,
        field: 'question',
        message: `case "${c.name}" has no memories or turns to recall from: add memory or speaker/text lines before its questions.`,
      });
      continue;
    }
    for (const [i, id] of q.expect.entries()) {
      if (!ids.has(id))
        errors.push({
          line: q.line,
          field: `expect[${i}]`,
          message: `no memory or turn of case "${c.name}" has id "${id}"${ids.size > 0 ? ` (ids: ${[...ids.keys()].slice(0, 10).join(', ')}${ids.size > 10 ? ', …' : ''})` : '; give the lines it means an "id"'}.`,
        });
    }
  }
  const hasSkills = c.skills.length > 0 || skillSources.some((s) => s.case === c);
  for (const m of c.messages)
    if (!hasSkills)
      errors.push({
        line: m.line,
        field: 'message',
        message: `case "${c.name}" has no skills to activate: add a {"skills": "<dir>"} or {"skill": {…}} line.`,
      });
  if (c.questions.length === 0 && c.messages.length === 0)
    errors.push({
      line: c.line,
      message: `case "${c.name}" asks nothing: add question lines (recall) or message lines (skills).`,
    });
}

/** Skill names a case expects that its library does not have (checked once the libraries are read). */
export function checkSkillNames(suite: EvalSuite): CaseFileError[] {
  const errors: CaseFileError[] = [];
  for (const c of suite.cases) {
    const names = new Set(c.skills.map((s) => s.name.trim()));
    const always = new Set(c.skills.filter((s) => s.alwaysApply === true).map((s) => s.name.trim()));
    for (const m of c.messages)
      for (const [i, name] of m.expect.entries()) {
        const field = `expect[${i}]`;
        if (!names.has(name))
          errors.push({
            line: m.line,
            field,
            message: `case "${c.name}" has no skill named "${name}"${names.size > 0 ? ` (${names.size} skills, e.g. ${[...names].slice(0, 5).join(', ')})` : ''}.`,
          });
        else if (always.has(name))
          errors.push({
            line: m.line,
            field,
            message: `skill "${name}" is alwaysApply: it is active for every message, so a message cannot choose it; expect the skills the message activates.`,
          });
      }
  }
  return errors;
}

/** One invalid-input error for a file's problems: the first three in the message, all of them in `details.errors`. */
export function caseFileError(source: string, errors: readonly CaseFileError[]): AgentMemoryError {
  const shown = errors.slice(0, 3).map((e) => `${source}:${e.line}${e.field ? ` ${e.field}` : ''}: ${e.message}`);
  if (errors.length > 3) shown.push(`and ${errors.length - 3} more (details.errors lists every one)`);
  return new AgentMemoryError(
    'INVALID_INPUT',
    `${source} has ${errors.length} ${errors.length === 1 ? 'problem' : 'problems'}; nothing was run. ${shown.join(' ')}`,
    { details: { errors } },
  );
}

/** Reads typed fields of one line, recording a problem per bad field. */
class FieldReader {
  constructor(
    private readonly obj: Record<string, unknown>,
    private readonly line: number,
    private readonly errors: CaseFileError[],
    private readonly misspelt: ReadonlySet<string> = new Set(),
  ) {}

  private fail(field: string, message: string): undefined {
    if (!this.misspelt.has(field)) this.errors.push({ line: this.line, field, message });
    return undefined;
  }

  text(field: string): string | undefined {
    const v = this.obj[field];
    if (typeof v !== 'string' || v.trim() === '') return this.fail(field, `"${field}" must be a non-empty string.`);
    return v;
  }

  optionalText(field: string): string | undefined {
    return this.obj[field] === undefined ? undefined : this.text(field);
  }

  textList(field: string, single = false): string[] | undefined {
    const v = this.obj[field];
    if (v === undefined) return undefined;
    if (single && typeof v === 'string') return [v];
    if (!Array.isArray(v) || v.some((x) => typeof x !== 'string' || x.trim() === ''))
      return this.fail(field, `"${field}" must be a list of non-empty strings${single ? ' (or one string)' : ''}.`);
    return v as string[];
  }

  /** `expect`: one name or a list; a message may expect none (`[]`: nothing may activate), a question may not. */
  expect(mayBeEmpty: boolean): string[] | undefined {
    const v = this.obj.expect;
    if (v === undefined)
      return this.fail(
        'expect',
        mayBeEmpty
          ? 'say which skills must activate: "expect": ["docker"], or [] when none may.'
          : 'say which memories must come back: "expect": ["<id>"], the ids given to memory or turn lines.',
      );
    const list = this.textList('expect', true);
    if (list && list.length === 0 && !mayBeEmpty)
      return this.fail('expect', 'a question needs at least one memory or turn id to expect.');
    return list ? [...new Set(list.map((s) => s.trim()))] : undefined;
  }

  fraction(field: string): number | undefined {
    const v = this.obj[field];
    if (v === undefined) return undefined;
    if (typeof v !== 'number' || !(v >= 0 && v <= 1))
      return this.fail(field, `"${field}" must be a number from 0 to 1.`);
    return v;
  }

  /** An ISO 8601 date or date-time (normalised to ISO), or undefined when absent. */
  date(field: string): string | undefined {
    const v = this.obj[field];
    if (v === undefined) return undefined;
    if (typeof v !== 'string' || !ISO_8601.test(v.trim()) || !Number.isFinite(Date.parse(v)))
      return this.fail(
        field,
        `"${field}" must be an ISO 8601 date or date-time such as 2024-05-08 or 2024-05-08T13:56:00Z.`,
      );
    return new Date(Date.parse(v)).toISOString();
  }
}

const ISO_8601 = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i;

/** " Did you mean "expect"?" for a key one or two edits (or a suffix) away from an allowed one. */
function hint(keys: readonly string[], allowed: readonly string[]): string {
  const near = nearest(keys, allowed);
  return near ? ` Did you mean "${near}"?` : '';
}

function nearest(keys: readonly string[], allowed: readonly string[]): string | undefined {
  for (const key of keys) {
    const near = allowed.find((a) => a !== key && (editDistance(a, key.toLowerCase()) <= 2 || key.startsWith(a)));
    if (near) return near;
  }
  return undefined;
}
