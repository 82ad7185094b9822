import type { JsonObject, MemoryInput } from '../contracts';
import { invalidInput } from '../errors';
import { cleanStoredText } from '../text/control-chars';
import { validateEntities } from '../entities/memory-entities';
import { assertMemoryType, SYSTEM_NAMESPACE_PREFIX } from '../scope';

/** Longest content a memory may hold, in characters (about 8k tokens). */
export const DEFAULT_MAX_CONTENT_LENGTH = 32_000;

/** Longest recall query or task message, in characters: checked before anything is embedded. */
export const DEFAULT_MAX_QUERY_LENGTH = 32_000;

/**
 * Content as stored, after the ingest policy (docs/reliability.md): lone
 * surrogates become U+FFFD; NUL, terminal escapes and other control
 * characters (tab and line ends kept) are removed. The length limit is
 * checked first, before any work on the text.
 */
export function validateContent(content: unknown, maxLength: number): string {
  if (typeof content !== 'string') throw invalidInput('Memory content must be a string.');
  if (content.length > maxLength) {
    throw invalidInput(
      `Memory content is ${content.length} characters; the limit is ${maxLength}. Split it into smaller facts or raise maxContentLength.`,
      { length: content.length, limit: maxLength },
    );
  }
  const clean = cleanStoredText(content);
  if (clean.trim() === '') throw invalidInput('Memory content is empty: give the fact to remember.');
  return clean;
}

/** A recall query or task message within the limit, refused before any embedding. */
export function validateQuery(query: unknown, what = 'recall()', maxLength = DEFAULT_MAX_QUERY_LENGTH): string {
  if (typeof query !== 'string' || query.trim() === '') throw invalidInput(`${what} needs a non-empty query.`);
  if (query.length > maxLength) {
    throw invalidInput(
      `The ${what} query is ${query.length} characters; the limit is ${maxLength}. Ask with a shorter text.`,
      {
        length: query.length,
        limit: maxLength,
      },
    );
  }
  return query;
}

export function validateImportance(importance: unknown): number {
  if (typeof importance !== 'number' || !Number.isFinite(importance) || importance < 0 || importance > 1) {
    throw invalidInput(`Importance must be a number from 0 to 1, got ${JSON.stringify(importance)}.`);
  }
  return importance;
}

export function validateTags(tags: unknown): string[] {
  if (!Array.isArray(tags) || tags.some((t) => typeof t !== 'string')) {
    throw invalidInput('Tags must be an array of strings.');
  }
  return [...new Set(tags as string[])];
}

export function validateMetadata(metadata: unknown): JsonObject {
  if (metadata === null || typeof metadata !== 'object' || Array.isArray(metadata)) {
    throw invalidInput('Metadata must be a plain JSON object.');
  }
  try {
    return JSON.parse(JSON.stringify(metadata)) as JsonObject;
  } catch (cause) {
    throw invalidInput(`Metadata must be JSON-serialisable: ${(cause as Error).message}`);
  }
}

export function validateNamespace(namespace: unknown): string {
  if (typeof namespace !== 'string' || namespace === '' || namespace.length > 512) {
    throw invalidInput(`Invalid namespace ${JSON.stringify(namespace)}.`);
  }
  if (namespace.startsWith(SYSTEM_NAMESPACE_PREFIX)) {
    throw invalidInput(`Namespace ${namespace} is reserved (names starting with "_" are agentmem's own).`);
  }
  return namespace;
}

export function validateId(id: unknown): string {
  if (typeof id !== 'string' || id === '' || id.length > 256 || /\p{Cc}/u.test(id)) {
    throw invalidInput(`Invalid memory id ${JSON.stringify(id)}: ids are non-empty strings of at most 256 characters.`);
  }
  return id;
}

/** An event time as ISO 8601 UTC: an ISO string with a date (a time and offset optional) or a valid Date. */
export function validateOccurredAt(value: unknown, name = 'occurredAt'): string {
  const ms =
    value instanceof Date
      ? value.getTime()
      : typeof value === 'string' && /^\d{4}-\d{2}-\d{2}/.test(value.trim())
        ? Date.parse(value.trim())
        : Number.NaN;
  if (!Number.isFinite(ms)) {
    throw invalidInput(
      `${name} must be an ISO 8601 date or date-time (e.g. "2023-05-08T13:56:00Z") or a Date, got ${JSON.stringify(value)}.`,
    );
  }
  return new Date(ms).toISOString();
}

/** Context text: a string within the same length limit as content; empty means none. */
export function validateContext(value: unknown, maxLength: number): string | undefined {
  if (typeof value !== 'string') throw invalidInput('Memory context must be a string.');
  if (value.length > maxLength) {
    throw invalidInput(
      `Memory context is ${value.length} characters; the limit is ${maxLength}. Keep the nearest turns or the source's title, or raise maxContentLength.`,
      { length: value.length, limit: maxLength },
    );
  }
  return value.trim() === '' ? undefined : value;
}

export function validateInput(input: MemoryInput, maxContentLength: number) {
  if (input === null || typeof input !== 'object') throw invalidInput('remember() takes an object { content, type }.');
  return {
    content: validateContent(input.content, maxContentLength),
    type: assertMemoryType(input.type),
    importance: validateImportance(input.importance ?? 0.5),
    tags: validateTags(input.tags ?? []),
    metadata: validateMetadata(input.metadata ?? {}),
    id: input.id === undefined ? undefined : validateId(input.id),
    namespace: input.namespace === undefined ? undefined : validateNamespace(input.namespace),
    occurredAt: input.occurredAt === undefined ? undefined : validateOccurredAt(input.occurredAt),
    context: input.context === undefined ? undefined : validateContext(input.context, maxContentLength),
    entities: input.entities === undefined ? undefined : validateEntities(input.entities),
  };
}
