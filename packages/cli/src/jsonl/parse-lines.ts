import {
  AgentMemoryError,
  DEFAULT_WRITE_LIMITS,
  MEMORY_TYPES,
  type StoredMemoryFields,
  validateStoredFields,
  type WriteLimits,
} from '@agentmem/core';

/**
 * One line of a memory JSONL file. `content` and `type` are required; every
 * other field of an exported Memory is kept when present (ids, timestamps,
 * status, provenance). `contentHash` is always recomputed; other keys are dropped.
 */
export type MemoryLine = StoredMemoryFields;

export interface ParsedLines {
  /** Valid lines with their 1-based line numbers (blank lines are skipped). */
  lines: { line: number; value: MemoryLine }[];
  /** Every invalid line, with what is wrong with it (and the field and rule, when the write policy said). */
  errors: { line: number; message: string; field?: string; rule?: string }[];
}

/**
 * Parses and validates every line before anything is written, so one bad line can stop the whole
 * import. Each line passes core's write policy for stored memories (the one `remember` and merge
 * use): checked, cleaned, unknown keys dropped.
 */
export function parseMemoryLines(text: string, limits: WriteLimits = DEFAULT_WRITE_LIMITS): ParsedLines {
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
    let value: MemoryLine;
    try {
      value = validateStoredFields(parsed, limits);
    } catch (error) {
      if (!AgentMemoryError.hasCode(error, 'INVALID_INPUT')) throw error;
      const { field, rule } = error.details as { field?: string; rule?: string };
      // Core names the value it got ("Unknown memory type undefined"); a line without the key needs the key named.
      const message =
        field === 'type' && isObject(parsed) && parsed.type === undefined
          ? `"type" is missing: add "type" with one of ${MEMORY_TYPES.join(', ')}.`
          : error.message;
      result.errors.push({ line, message, ...(field ? { field } : {}), ...(rule ? { rule } : {}) });
      return;
    }
    if (value.id !== undefined) {
      const first = firstLineOfId.get(value.id);
      if (first !== undefined) {
        result.errors.push({ line, message: `id ${value.id} is already used on line ${first}`, field: 'id' });
        return;
      }
      firstLineOfId.set(value.id, line);
    }
    result.lines.push({ line, value });
  });
  return result;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
