import { createHash } from 'node:crypto';
import { invalidInput } from '../errors';
import { preview, validateImportance, validateMetadata, validateOccurredAt, violation } from '../store/validate';
import { cleanLabel, cleanStoredText } from '../text/control-chars';
import type { Skill, SkillInput } from './skill';

export const DEFAULT_SKILL_IMPORTANCE = 0.7;
/** Longest skill content, in characters (a long SKILL.md is ~500 lines). */
export const MAX_SKILL_CONTENT_LENGTH = 100_000;

/** A checked skill input: every field of a Skill but those derived when it is stored. */
export type ValidSkillInput = Omit<Skill, 'specificationVersion' | 'contentHash' | 'createdAt' | 'updatedAt'>;

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what a name may not contain
const NAME_FORBIDDEN = /[\u0000-\u001f\u007f-\u009f]/;

export function validateSkillName(name: unknown): string {
  if (typeof name !== 'string' || name.trim() === '' || name.length > 128 || NAME_FORBIDDEN.test(name)) {
    throw violation(
      'name',
      'type',
      `Invalid skill name ${preview(name)}: use a non-empty name of at most 128 characters without control characters.`,
    );
  }
  return name.trim();
}

function stringList(value: unknown, field: string, name: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) {
    throw violation(field, 'type', `Skill ${name}: ${field} must be an array of strings.`);
  }
  return [...new Set((value as string[]).map((v) => cleanLabel(v).trim()).filter((v) => v !== ''))];
}

/** Checks a skill before anything is written; throws INVALID_INPUT saying what to fix. */
export function validateSkillInput(input: SkillInput): ValidSkillInput {
  if (input === null || typeof input !== 'object')
    throw invalidInput('register() takes a skill object { name, content }.');
  const name = validateSkillName(input.name);
  if (typeof input.content !== 'string' || cleanStoredText(input.content).trim() === '') {
    throw violation('content', 'empty', `Skill ${name} has no content: give the instructions the agent should follow.`);
  }
  if (input.content.length > MAX_SKILL_CONTENT_LENGTH) {
    throw violation(
      'content',
      'max-length',
      `Skill ${name} is ${input.content.length} characters; the limit is ${MAX_SKILL_CONTENT_LENGTH}. Split it into smaller skills.`,
    );
  }
  if (input.description !== undefined && typeof input.description !== 'string') {
    throw violation('description', 'type', `Skill ${name}: description must be a string.`);
  }
  if (input.description !== undefined && input.description.length > MAX_SKILL_CONTENT_LENGTH) {
    throw violation(
      'description',
      'max-length',
      `Skill ${name}: the description is over ${MAX_SKILL_CONTENT_LENGTH} characters.`,
    );
  }
  if (input.alwaysApply !== undefined && typeof input.alwaysApply !== 'boolean') {
    throw violation('alwaysApply', 'type', `Skill ${name}: alwaysApply must be true or false.`);
  }
  if (
    input.source !== undefined &&
    (typeof input.source?.path !== 'string' || typeof input.source?.format !== 'string')
  ) {
    throw violation('source', 'type', `Skill ${name}: source must be { path, format }.`);
  }
  return {
    name,
    description: cleanStoredText(input.description ?? '').trim(),
    content: cleanStoredText(input.content).trim(),
    globPatterns: stringList(input.globPatterns, 'globPatterns', name),
    triggerKeywords: stringList(input.triggerKeywords, 'triggerKeywords', name),
    toolsAllowed: stringList(input.toolsAllowed, 'toolsAllowed', name),
    importance: validateImportance(input.importance ?? DEFAULT_SKILL_IMPORTANCE),
    tags: stringList(input.tags, 'tags', name),
    alwaysApply: input.alwaysApply ?? false,
    metadata: validateMetadata(input.metadata ?? {}),
    ...(input.source ? { source: { path: cleanLabel(input.source.path), format: input.source.format } } : {}),
  };
}

/**
 * A skill record another store wrote (a snapshot), through the same policy as
 * `register`: fields checked and cleaned, anything else dropped, the hash
 * recomputed.
 */
export function storedSkill(payload: unknown): Skill {
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) {
    throw violation('payload', 'type', 'A skill record must hold a skill object.');
  }
  const p = payload as Record<string, unknown>;
  const valid = validateSkillInput(p as unknown as SkillInput);
  const createdAt = validateOccurredAt(p.createdAt, 'createdAt');
  const updatedAt = p.updatedAt === undefined ? createdAt : validateOccurredAt(p.updatedAt, 'updatedAt');
  return { specificationVersion: 'v1', ...valid, contentHash: skillHash(valid), createdAt, updatedAt };
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
