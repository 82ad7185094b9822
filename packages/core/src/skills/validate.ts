import { createHash } from 'node:crypto';
import { invalidInput } from '../errors';
import { validateImportance, validateMetadata } from '../store/validate';
import type { Skill, SkillInput } from './skill';

export const DEFAULT_SKILL_IMPORTANCE = 0.7;
/** Longest skill content, in characters (a long SKILL.md is ~500 lines). */
export const MAX_SKILL_CONTENT_LENGTH = 100_000;

/** A checked skill input: every field of a Skill but those derived when it is stored. */
export type ValidSkillInput = Omit<Skill, 'specificationVersion' | 'contentHash' | 'createdAt' | 'updatedAt'>;

export function validateSkillName(name: unknown): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what a name may not contain
  if (typeof name !== 'string' || name.trim() === '' || name.length > 128 || /[\u0000-\u001f]/.test(name)) {
    throw invalidInput(
      `Invalid skill name ${JSON.stringify(name)}: use a non-empty name of at most 128 characters without control characters.`,
    );
  }
  return name.trim();
}

function stringList(value: unknown, field: string, name: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) {
    throw invalidInput(`Skill ${name}: ${field} must be an array of strings.`);
  }
  return [...new Set((value as string[]).map((v) => v.trim()).filter((v) => v !== ''))];
}

/** Checks a skill before anything is written; throws INVALID_INPUT saying what to fix. */
export function validateSkillInput(input: SkillInput): ValidSkillInput {
  if (input === null || typeof input !== 'object')
    throw invalidInput('register() takes a skill object { name, content }.');
  const name = validateSkillName(input.name);
  if (typeof input.content !== 'string' || input.content.trim() === '') {
    throw invalidInput(`Skill ${name} has no content: give the instructions the agent should follow.`);
  }
  if (input.content.length > MAX_SKILL_CONTENT_LENGTH) {
    throw invalidInput(
      `Skill ${name} is ${input.content.length} characters; the limit is ${MAX_SKILL_CONTENT_LENGTH}. Split it into smaller skills.`,
    );
  }
  if (input.description !== undefined && typeof input.description !== 'string') {
    throw invalidInput(`Skill ${name}: description must be a string.`);
  }
  if (input.alwaysApply !== undefined && typeof input.alwaysApply !== 'boolean') {
    throw invalidInput(`Skill ${name}: alwaysApply must be true or false.`);
  }
  if (
    input.source !== undefined &&
    (typeof input.source?.path !== 'string' || typeof input.source?.format !== 'string')
  ) {
    throw invalidInput(`Skill ${name}: source must be { path, format }.`);
  }
  return {
    name,
    description: (input.description ?? '').trim(),
    content: input.content.trim(),
    globPatterns: stringList(input.globPatterns, 'globPatterns', name),
    triggerKeywords: stringList(input.triggerKeywords, 'triggerKeywords', name),
    toolsAllowed: stringList(input.toolsAllowed, 'toolsAllowed', name),
    importance: validateImportance(input.importance ?? DEFAULT_SKILL_IMPORTANCE),
    tags: stringList(input.tags, 'tags', name),
    alwaysApply: input.alwaysApply ?? false,
    metadata: validateMetadata(input.metadata ?? {}),
    ...(input.source ? { source: { path: input.source.path, format: input.source.format } } : {}),
  };
}

/** Hash of everything that defines a skill (not its timestamps). */
export function skillHash(skill: ValidSkillInput): string {
  const canonical = JSON.stringify([
    skill.name,
    skill.description,
    skill.content,
    skill.globPatterns,
    skill.triggerKeywords,
    skill.toolsAllowed,
    skill.importance,
    skill.tags,
    skill.alwaysApply,
    sortKeys(skill.metadata),
    skill.source ?? null,
  ]);
  return createHash('sha256').update(canonical).digest('hex');
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, sortKeys((value as Record<string, unknown>)[k])]),
  );
}
