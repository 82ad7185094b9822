/**
 * The write policy, field by field: every way a memory enters a store
 * (remember, update, import, merge) checks and cleans its fields here, and
 * nowhere else. Errors are INVALID_INPUT with `details.field` and
 * `details.rule`, so a caller that checks many records (a merge, an import)
 * can say which record broke which rule.
 */
import type { JsonObject, JsonValue, MemoryInput, MemoryType } from '../contracts';
import { type AgentMemoryError, invalidInput } from '../errors';
import { isMemoryType, MEMORY_TYPES, SYSTEM_NAMESPACE_PREFIX } from '../scope';
import { cleanLabel, cleanStoredText } from '../text/control-chars';
import {
  DEFAULT_WRITE_LIMITS,
  MAX_AGENT_ID_LENGTH,
  MAX_ID_LENGTH,
  MAX_LABEL_LENGTH,
  MAX_NAMESPACE_LENGTH,
  MAX_SESSION_ID_LENGTH,
  MAX_TENANT_LENGTH,
  type WriteLimits,
} from './limits';
import { validateEntities } from '../entities/memory-entities';

/** Longest content a memory may hold, in characters (about 8k tokens). */
export const DEFAULT_MAX_CONTENT_LENGTH = DEFAULT_WRITE_LIMITS.maxContentLength;

/** Longest recall query or task message, in characters: checked before anything is embedded. */
export const DEFAULT_MAX_QUERY_LENGTH = 32_000;

/** The rule a field broke, for callers that report many records (`details.rule`). */
export type PolicyRule =
  | 'type'
  | 'required'
  | 'empty'
  | 'max-length'
  | 'max-count'
  | 'max-bytes'
  | 'max-depth'
  | 'max-keys'
  | 'range'
  | 'one-of'
  | 'control-characters'
  | 'reserved'
  | 'date'
  | 'json';

/** An INVALID_INPUT naming the field and the rule it broke. */
export function violation(
  field: string,
  rule: PolicyRule,
  message: string,
  details: Record<string, unknown> = {},
): AgentMemoryError {
  return invalidInput(message, { field, rule, ...details });
}

/**
 * Content as stored, after the ingest policy (docs/reliability.md): lone
 * surrogates become U+FFFD; NUL, terminal escapes and other control
 * characters (tab and line ends kept) are removed. The length limit is
 * checked first, before any work on the text.
 */
export function validateContent(content: unknown, maxLength: number): string {
  if (typeof content !== 'string') throw violation('content', 'type', 'Memory content must be a string.');
  if (content.length > maxLength) {
    throw violation(
      'content',
      'max-length',
      `Memory content is ${content.length} characters; the limit is ${maxLength}. Split it into smaller facts or raise maxContentLength.`,
      { length: content.length, limit: maxLength },
    );
  }
  const clean = cleanStoredText(content);
  if (clean.trim() === '') throw violation('content', 'empty', 'Memory content is empty: give the fact to remember.');
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

export function validateMemoryType(type: unknown): MemoryType {
  if (!isMemoryType(type)) {
    throw violation('type', 'one-of', `Unknown memory type ${preview(type)}: use one of ${MEMORY_TYPES.join(', ')}.`, {
      value: preview(type),
    });
  }
  return type;
}

export function validateImportance(importance: unknown): number {
  if (typeof importance !== 'number' || !Number.isFinite(importance) || importance < 0 || importance > 1) {
    throw violation('importance', 'range', `Importance must be a number from 0 to 1, got ${preview(importance)}.`);
  }
  return importance;
}

/**
 * Tags as stored: at most `maxTags`, each at most `maxTagLength` characters
 * (both checked before any work on them), cleaned as one-line labels (no
 * control character, escape sequence or line break), without repeats.
 */
export function validateTags(
  tags: unknown,
  limits: Pick<WriteLimits, 'maxTags' | 'maxTagLength'> = DEFAULT_WRITE_LIMITS,
): string[] {
  if (!Array.isArray(tags)) throw violation('tags', 'type', `Tags must be an array of strings, got ${preview(tags)}.`);
  if (tags.length > limits.maxTags) {
    throw violation(
      'tags',
      'max-count',
      `A memory has at most ${limits.maxTags} tags; got ${tags.length}. Keep the ones recall should filter on, or raise limits.maxTags.`,
      { count: tags.length, limit: limits.maxTags },
    );
  }
  if (tags.length === 0) return [];
  const out = new Set<string>();
  for (const tag of tags) {
    if (typeof tag !== 'string')
      throw violation('tags', 'type', `Tags must be an array of strings, got a ${typeof tag}.`);
    if (tag.length > limits.maxTagLength) {
      throw violation(
        'tags',
        'max-length',
        `A tag is ${tag.length} characters; the limit is ${limits.maxTagLength}. Use a short label, or raise limits.maxTagLength.`,
        { length: tag.length, limit: limits.maxTagLength },
      );
    }
    out.add(cleanLabel(tag));
  }
  return [...out];
}

type MetadataLimits = Pick<WriteLimits, 'maxMetadataBytes' | 'maxMetadataDepth' | 'maxMetadataKeys'>;

/**
 * Metadata as stored: a plain JSON object within the size, depth and key
 * limits, its strings cleaned as content is (keys as one-line labels). The
 * bounds are checked on the value as given, before it is copied or
 * serialised, so 100 MB of metadata costs a refusal, not a gigabyte of memory.
 */
export function validateMetadata(metadata: unknown, limits: MetadataLimits = DEFAULT_WRITE_LIMITS): JsonObject {
  if (metadata === null || typeof metadata !== 'object' || Array.isArray(metadata)) {
    throw violation('metadata', 'type', `Metadata must be a plain JSON object, got ${preview(metadata)}.`);
  }
  const proto = Object.getPrototypeOf(metadata);
  if ((proto === Object.prototype || proto === null) && isEmpty(metadata)) return {};
  measureMetadata(metadata, limits);
  let json: string;
  try {
    json = JSON.stringify(metadata);
  } catch (cause) {
    throw violation('metadata', 'json', `Metadata must be JSON-serialisable: ${(cause as Error).message}`);
  }
  const parsed = JSON.parse(json) as JsonObject;
  // Most metadata has nothing to clean: the parsed copy is then the stored value and its JSON is `json`.
  const dirty = needsCleaningJson(parsed);
  const clean = dirty ? (cleanJson(parsed) as JsonObject) : parsed;
  const bytes = Buffer.byteLength(dirty ? JSON.stringify(clean) : json);
  if (bytes > limits.maxMetadataBytes) throw metadataTooLarge(bytes, limits);
  return clean;
}

function isEmpty(value: object): boolean {
  for (const _ in value) return false;
  return true;
}

function metadataTooLarge(bytes: number, limits: MetadataLimits, atLeast = false): AgentMemoryError {
  return violation(
    'metadata',
    'max-bytes',
    `Metadata is ${atLeast ? 'more than ' : ''}${bytes} bytes as JSON; the limit is ${limits.maxMetadataBytes}. ` +
      'Keep large data elsewhere and store a reference to it, or raise limits.maxMetadataBytes.',
    { bytes, limit: limits.maxMetadataBytes },
  );
}

/**
 * Depth, key count and a lower bound of the JSON size, stopping at the first
 * limit crossed (recursion is bounded by the depth limit; an array counts one
 * byte per element before its items are visited, so a sparse array of a
 * billion holes is refused at once). A cycle is refused here too.
 */
function measureMetadata(root: object, limits: MetadataLimits): void {
  let keys = 0;
  let bytes = 0;
  const ancestors = new Set<object>();
  const visit = (value: unknown, depth: number): void => {
    if (typeof value === 'string') bytes += value.length + 2;
    else if (typeof value === 'number' || typeof value === 'boolean') bytes += 1;
    if (bytes > limits.maxMetadataBytes) throw metadataTooLarge(bytes, limits, true);
    if (value === null || typeof value !== 'object' || typeof (value as { toJSON?: unknown }).toJSON === 'function')
      return;
    if (depth > limits.maxMetadataDepth) {
      throw violation(
        'metadata',
        'max-depth',
        `Metadata is nested more than ${limits.maxMetadataDepth} levels deep. Flatten it, or raise limits.maxMetadataDepth.`,
        { limit: limits.maxMetadataDepth },
      );
    }
    if (ancestors.has(value))
      throw violation('metadata', 'json', 'Metadata must be JSON-serialisable: it contains a cycle.');
    ancestors.add(value);
    if (Array.isArray(value)) {
      bytes += 2 + value.length;
      if (bytes > limits.maxMetadataBytes) throw metadataTooLarge(bytes, limits, true);
      for (const item of value) visit(item, depth + 1);
    } else {
      const own = Object.keys(value);
      keys += own.length;
      if (keys > limits.maxMetadataKeys) {
        throw violation(
          'metadata',
          'max-keys',
          `Metadata has more than ${limits.maxMetadataKeys} keys. Keep large data elsewhere, or raise limits.maxMetadataKeys.`,
          { limit: limits.maxMetadataKeys },
        );
      }
      bytes += 2;
      for (const key of own) {
        bytes += key.length + 3;
        visit((value as Record<string, unknown>)[key], depth + 1);
      }
    }
    ancestors.delete(value);
  };
  visit(root, 1);
}

/** Whether `cleanJson` would change a string or a key of this parsed JSON. */
function needsCleaningJson(value: JsonValue): boolean {
  if (typeof value === 'string') return cleanStoredText(value) !== value;
  if (value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some(needsCleaningJson);
  for (const key of Object.keys(value)) {
    if (cleanLabel(key) !== key || needsCleaningJson(value[key] as JsonValue)) return true;
  }
  return false;
}

/** Parsed JSON with every string cleaned; objects built with own properties only (a `__proto__` key stays a key). */
function cleanJson(value: JsonValue): JsonValue {
  if (typeof value === 'string') return cleanStoredText(value);
  if (Array.isArray(value)) return value.map(cleanJson);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [cleanLabel(k), cleanJson(v as JsonValue)]));
  }
  return value;
}

/**
 * Identifiers (ids, tenants, agent and session ids, namespaces) are compared
 * byte for byte, so they are refused rather than cleaned: cleaning could make
 * two tenants one. No control character (tab and line ends included), no lone
 * surrogate, at most `max` characters.
 */
function validateIdentifier(value: unknown, field: string, what: string, max: number, allowEmpty = false): string {
  if (typeof value !== 'string') throw violation(field, 'type', `${what} must be a string, got ${preview(value)}.`);
  if (value === '' && !allowEmpty) throw violation(field, 'empty', `${what} must not be empty.`);
  if (value.length > max) {
    throw violation(field, 'max-length', `${what} is ${value.length} characters; the limit is ${max}.`, {
      length: value.length,
      limit: max,
    });
  }
  if (hasForbiddenIdentifierCharacter(value)) {
    throw violation(
      field,
      'control-characters',
      `${what} ${preview(value)} contains a control character or a lone surrogate; use printable text.`,
    );
  }
  return value;
}

const IDENTIFIER_FORBIDDEN =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what identifiers may not contain
  /[\u0000-\u001f\u007f-\u009f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function hasForbiddenIdentifierCharacter(value: string): boolean {
  return IDENTIFIER_FORBIDDEN.test(value);
}

export function validateNamespace(namespace: unknown): string {
  validateIdentifier(namespace, 'namespace', 'A namespace', MAX_NAMESPACE_LENGTH);
  if ((namespace as string).startsWith(SYSTEM_NAMESPACE_PREFIX)) {
    throw violation(
      'namespace',
      'reserved',
      `Namespace ${namespace} is reserved (names starting with "_" are agentmem's own).`,
    );
  }
  return namespace as string;
}

export function validateId(id: unknown, field = 'id'): string {
  if (typeof id !== 'string' || id === '' || id.length > MAX_ID_LENGTH || hasForbiddenIdentifierCharacter(id)) {
    throw violation(
      field,
      typeof id !== 'string'
        ? 'type'
        : id === ''
          ? 'empty'
          : id.length > MAX_ID_LENGTH
            ? 'max-length'
            : 'control-characters',
      `Invalid memory id ${preview(id)}: ids are non-empty strings of at most ${MAX_ID_LENGTH} characters without control characters.`,
    );
  }
  return id;
}

/** A tenant id (`''` is the default tenant). */
export function validateTenant(tenant: unknown): string {
  return validateIdentifier(tenant, 'tenant', 'A tenant id', MAX_TENANT_LENGTH, true);
}

export function validateAgentId(agentId: unknown): string {
  return validateIdentifier(agentId, 'agentId', 'An agent id', MAX_AGENT_ID_LENGTH);
}

export function validateSessionId(sessionId: unknown): string {
  if (typeof sessionId === 'string' && sessionId.trim() === '') {
    throw violation('sessionId', 'empty', 'A session id must not be empty (a thread or conversation id).');
  }
  return validateIdentifier(sessionId, 'sessionId', 'A session id', MAX_SESSION_ID_LENGTH);
}

/** A provenance label (`mergedFrom`): text, cleaned to one line, bounded. */
export function validateLabel(value: unknown, field: string): string {
  if (typeof value !== 'string') throw violation(field, 'type', `${field} must be a string, got ${preview(value)}.`);
  if (value.length > MAX_LABEL_LENGTH) {
    throw violation(field, 'max-length', `${field} is ${value.length} characters; the limit is ${MAX_LABEL_LENGTH}.`);
  }
  return cleanLabel(value);
}

/** `toISOString()`'s own form: a stored timestamp read back (a merge checks four per record). */
const CANONICAL_ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
let lastCanonical = '';

/** An event time as ISO 8601 UTC: an ISO string with a date (a time and offset optional) or a valid Date. */
export function validateOccurredAt(value: unknown, name = 'occurredAt'): string {
  if (typeof value === 'string' && CANONICAL_ISO.test(value)) {
    // A record's times are often one instant: the last canonical one is remembered.
    if (value === lastCanonical) return value;
    // Already canonical unless the date rolls over (2026-02-30): cheaper than formatting it again.
    const ms = Date.parse(value);
    if (Number.isFinite(ms) && new Date(ms).getUTCDate() === Number(value.slice(8, 10))) {
      lastCanonical = value;
      return value;
    }
  }
  const ms =
    value instanceof Date
      ? value.getTime()
      : typeof value === 'string' && /^\d{4}-\d{2}-\d{2}/.test(value.trim())
        ? Date.parse(value.trim())
        : Number.NaN;
  if (!Number.isFinite(ms)) {
    throw violation(
      name,
      'date',
      `${name} must be an ISO 8601 date or date-time (e.g. "2023-05-08T13:56:00Z") or a Date, got ${preview(value)}.`,
    );
  }
  return new Date(ms).toISOString();
}

/** Context text: a string within the same length limit as content, cleaned as content is; empty means none. */
export function validateContext(value: unknown, maxLength: number): string | undefined {
  if (typeof value !== 'string') throw violation('context', 'type', 'Memory context must be a string.');
  if (value.length > maxLength) {
    throw violation(
      'context',
      'max-length',
      `Memory context is ${value.length} characters; the limit is ${maxLength}. Keep the nearest turns or the source's title, or raise maxContentLength.`,
      { length: value.length, limit: maxLength },
    );
  }
  const clean = cleanStoredText(value);
  return clean.trim() === '' ? undefined : clean;
}

export function validateInput(input: MemoryInput, limits: WriteLimits) {
  if (input === null || typeof input !== 'object') throw invalidInput('remember() takes an object { content, type }.');
  return {
    content: validateContent(input.content, limits.maxContentLength),
    type: validateMemoryType(input.type),
    importance: validateImportance(input.importance ?? 0.5),
    tags: validateTags(input.tags ?? [], limits),
    metadata: validateMetadata(input.metadata ?? {}, limits),
    id: input.id === undefined ? undefined : validateId(input.id),
    namespace: input.namespace === undefined ? undefined : validateNamespace(input.namespace),
    occurredAt: input.occurredAt === undefined ? undefined : validateOccurredAt(input.occurredAt),
    context: input.context === undefined ? undefined : validateContext(input.context, limits.maxContentLength),
    entities: input.entities === undefined ? undefined : validateEntities(input.entities),
  };
}

/** A short, printable rendering of a bad value for an error message (never 1 MB of it). */
export function preview(value: unknown): string {
  if (typeof value === 'string') {
    const text = JSON.stringify(value.slice(0, 60));
    return value.length > 60 ? `${text.slice(0, -1)}…" (${value.length} characters)` : text;
  }
  if (Array.isArray(value)) return `an array of ${value.length} items`;
  if (value === null) return 'null';
  if (typeof value === 'object') return value instanceof Date ? `an invalid Date` : 'an object';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return typeof value;
}
