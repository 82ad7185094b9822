import {
  DEFAULT_MAX_CONTENT_LENGTH,
  isMemoryType,
  type JsonObject,
  MEMORY_TYPES,
  type MemoryType,
  SYSTEM_NAMESPACE_PREFIX,
} from '@agentmem/core';

/**
 * One line of a memory JSONL file. `content` and `type` are required; every
 * other field of an exported Memory is kept when present (ids, timestamps,
 * status, provenance). `contentHash` is always recomputed.
 */
export interface MemoryLine {
  content: string;
  type: MemoryType;
  id?: string;
  importance?: number;
  tags?: string[];
  metadata?: JsonObject;
  namespace?: string;
  tenant?: string;
  createdAt?: string;
  updatedAt?: string;
  lastAccessedAt?: string;
  accessCount?: number;
  supersededBy?: string;
  prunedAt?: string;
  agentId?: string;
  branch?: string;
  mergedFrom?: string;
  mergeId?: string;
  /** When the memory's event happened (ISO 8601); default: its createdAt. */
  occurredAt?: string;
  /** Text that helps find it (neighbouring turns, source); never its content. */
  context?: string;
}

export interface ParsedLines {
  /** Valid lines with their 1-based line numbers (blank lines are skipped). */
  lines: { line: number; value: MemoryLine }[];
  /** Every invalid line, with what is wrong with it. */
  errors: { line: number; message: string }[];
}

const OPTIONAL_STRINGS = ['supersededBy', 'agentId', 'branch', 'mergedFrom', 'mergeId', 'tenant', 'context'] as const;
const TIMESTAMPS = ['createdAt', 'updatedAt', 'lastAccessedAt', 'prunedAt', 'occurredAt'] as const;

/** Parses and validates every line before anything is written, so one bad line can stop the whole import. */
export function parseMemoryLines(text: string, maxContentLength = DEFAULT_MAX_CONTENT_LENGTH): ParsedLines {
  const result: ParsedLines = { lines: [], errors: [] };
  const firstLineOfId = new Map<string, number>();
  // A leading byte order mark (editors on Windows write one) is not part of line 1, as for skill files.
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  body.split(/\r?\n/).forEach((raw, index) => {
    const line = index + 1;
    if (raw.trim() === '') return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch (error) {
      result.errors.push({ line, message: `not valid JSON (${(error as Error).message})` });
      return;
    }
    const problem = checkLine(parsed, maxContentLength);
    if (problem) {
      result.errors.push({ line, message: problem });
      return;
    }
    const value = parsed as MemoryLine;
    if (value.id !== undefined) {
      const first = firstLineOfId.get(value.id);
      if (first !== undefined) {
        result.errors.push({ line, message: `id ${value.id} is already used on line ${first}` });
        return;
      }
      firstLineOfId.set(value.id, line);
    }
    result.lines.push({ line, value });
  });
  return result;
}

/** What is wrong with one parsed line, or undefined when it is a valid memory. */
function checkLine(value: unknown, maxContentLength: number): string | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return 'expected a JSON object such as {"content": "...", "type": "project"}';
  }
  const v = value as Record<string, unknown>;
  if (typeof v.content !== 'string' || v.content.trim() === '') return 'content is missing or empty';
  if (v.content.length > maxContentLength) {
    return `content is ${v.content.length} characters; the limit is ${maxContentLength}`;
  }
  if (!isMemoryType(v.type)) return `type ${JSON.stringify(v.type)} is not one of ${MEMORY_TYPES.join(', ')}`;
  if (
    v.id !== undefined &&
    (typeof v.id !== 'string' || v.id === '' || v.id.length > 256 || hasControlCharacter(v.id))
  ) {
    return 'id must be a non-empty string of at most 256 characters';
  }
  if (
    v.importance !== undefined &&
    (typeof v.importance !== 'number' || !Number.isFinite(v.importance) || v.importance < 0 || v.importance > 1)
  ) {
    return 'importance must be a number from 0 to 1';
  }
  if (v.tags !== undefined && (!Array.isArray(v.tags) || v.tags.some((t) => typeof t !== 'string'))) {
    return 'tags must be an array of strings';
  }
  if (
    v.metadata !== undefined &&
    (v.metadata === null || typeof v.metadata !== 'object' || Array.isArray(v.metadata))
  ) {
    return 'metadata must be a JSON object';
  }
  if (v.namespace !== undefined) {
    if (typeof v.namespace !== 'string' || v.namespace === '' || v.namespace.length > 512) {
      return 'namespace must be a non-empty string';
    }
    if (v.namespace.startsWith(SYSTEM_NAMESPACE_PREFIX)) return `namespace ${v.namespace} is reserved`;
  }
  for (const key of OPTIONAL_STRINGS) {
    if (v[key] !== undefined && typeof v[key] !== 'string') return `${key} must be a string`;
  }
  for (const key of TIMESTAMPS) {
    if (v[key] !== undefined && (typeof v[key] !== 'string' || Number.isNaN(Date.parse(v[key] as string)))) {
      return `${key} must be an ISO 8601 timestamp`;
    }
  }
  if (typeof v.context === 'string' && v.context.length > maxContentLength) {
    return `context is ${v.context.length} characters; the limit is ${maxContentLength}`;
  }
  if (v.accessCount !== undefined && (!Number.isSafeInteger(v.accessCount) || (v.accessCount as number) < 0)) {
    return 'accessCount must be a non-negative integer';
  }
  return undefined;
}

function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) < 0x20) return true;
  return false;
}
