import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { AgentMemoryError, invalidInput } from '../errors';
import { loadSkills } from '../skills/loader';
import { type CaseFileError, caseFileError, checkSkillNames, parseCaseFile } from './case-file';
import type { EvalSuite } from './eval-suite';
import { isLocomo, locomoSuite, parseLocomo } from './locomo';

/**
 * Reads a case file (JSONL, docs/eval.md) or a LoCoMo JSON file into a suite,
 * with the skill libraries its cases name (paths relative to the file).
 * Anything wrong is one INVALID_INPUT error listing every problem by line and
 * field (`details.errors`); a skill file of a library that does not load is a
 * warning, as `skills load` reports it.
 */
export async function loadEvalFile(path: string): Promise<EvalSuite> {
  const full = resolve(path);
  const source = basename(full);
  const text = readText(full);
  if (text.trimStart().startsWith('[')) {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    if (json !== undefined) {
      if (isLocomo(json)) return locomoSuite(parseLocomo(json, source), source);
      throw invalidInput(
        `${source} is a JSON array but not LoCoMo (samples with "conversation" and "qa"): write cases as JSONL, one object per line (docs/eval.md).`,
        { path: full },
      );
    }
  }
  const parsed = parseCaseFile(text, source);
  if (parsed.errors.length > 0) throw caseFileError(source, parsed.errors);
  const errors: CaseFileError[] = [];
  const warnings: string[] = [];
  for (const { case: c, path: dir, line } of parsed.skillSources) {
    const where = resolve(dirname(full), dir);
    if (!existsSync(where)) {
      errors.push({ line, field: 'skills', message: `no skills directory or file at ${where}.` });
      continue;
    }
    const loaded = await loadSkills(where);
    for (const p of loaded.problems)
      if (p.severity !== 'skipped') warnings.push(`${p.path}${p.line ? `:${p.line}` : ''}: ${p.severity}: ${p.reason}`);
    if (loaded.skills.length === 0) {
      errors.push({ line, field: 'skills', message: `${where} holds no skill (see \`agentmem skills lint ${dir}\`).` });
      continue;
    }
    // Inline skills of the case (read already) come after, so one of the same name replaces the library's.
    c.skills.unshift(...loaded.skills);
  }
  errors.push(...checkSkillNames(parsed.suite));
  if (errors.length > 0)
    throw caseFileError(
      source,
      errors.sort((a, b) => a.line - b.line),
    );
  return { ...parsed.suite, warnings };
}

function readText(path: string): string {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EISDIR')
      throw invalidInput(`${path} is a directory; give a case file (JSONL) or a LoCoMo JSON file.`, { path });
    if (code === 'ENOENT' || code === 'ENOTDIR')
      throw new AgentMemoryError('NOT_FOUND', `No case file at ${path}. Check the path.`, {
        cause: error,
        details: { path },
      });
    throw error;
  }
  const nul = bytes.indexOf(0);
  if (nul >= 0)
    throw invalidInput(`${path} is not a text file (NUL byte at offset ${nul}); a case file is JSONL.`, { path });
  return bytes.toString('utf8');
}
