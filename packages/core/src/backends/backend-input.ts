import type { AttributeValue, SearchRequest } from '../contracts';
import { AgentMemoryError, invalidInput } from '../errors';

/** Range conditions and their SQL operators, for backends that compile filters to SQL. */
export const RANGE_OPERATORS = [
  ['gt', '>'],
  ['gte', '>='],
  ['lt', '<'],
  ['lte', '<='],
] as const;

/** A stored attribute: a string, finite number, boolean or null. */
export function checkAttributeValue(key: string, value: unknown): void {
  const ok =
    value === null ||
    typeof value === 'string' ||
    typeof value === 'boolean' ||
    (typeof value === 'number' && Number.isFinite(value));
  if (!ok)
    throw invalidInput(
      `Attribute "${key}" must be a string, finite number, boolean or null, got ${JSON.stringify(value)}.`,
    );
}

/** A value a filter compares an attribute with. */
export function checkFilterValue(value: unknown, key: string): AttributeValue {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  throw invalidInput(`Filter on "${key}": ${JSON.stringify(value)} is not a string, finite number, boolean or null.`);
}

/** The values of an `in` / `notIn` condition. */
export function filterValues(values: unknown, key: string): AttributeValue[] {
  if (!Array.isArray(values)) throw invalidInput(`Filter on "${key}": in/notIn need an array.`);
  return values.map((v) => checkFilterValue(v, key));
}

/**
 * The checks every backend without native hybrid search makes first: a
 * request object, not `hybrid` (MemoryStore fuses), a finite k. Returns k.
 */
export function searchRequestK(request: SearchRequest, backendName: string): number {
  if (!request || typeof request !== 'object') throw invalidInput('search() takes { mode, filter, k, vector | text }.');
  if (request.mode === 'hybrid') {
    throw new AgentMemoryError(
      'CAPABILITY_MISSING',
      `${backendName} has no native hybrid search; MemoryStore fuses its dense and keyword results itself.`,
    );
  }
  const k = Math.max(0, Math.floor(request.k));
  if (!Number.isFinite(k)) throw invalidInput(`search() needs a finite k, got ${request.k}.`);
  return k;
}

/** A filter's namespace list, checked and without repeats (empty: the filter matches nothing). */
export function filterNamespaces(namespaces: readonly string[]): string[] {
  if (!Array.isArray(namespaces) || namespaces.some((n) => typeof n !== 'string')) {
    throw invalidInput('`namespaces` must be an array of strings.');
  }
  return [...new Set(namespaces)];
}

/** A record's entity keys (`BackendRecord.links`): undefined, or an array of non-empty strings. */
export function checkLinks(id: string, links: unknown): void {
  if (links === undefined) return;
  if (!Array.isArray(links) || links.some((k) => typeof k !== 'string' || k === '')) {
    throw invalidInput(`Record ${id}: links must be an array of non-empty strings (entity keys) when given.`);
  }
}

/** A `linked` query's keys and limit, checked; keys without repeats. */
export function linkQueryKeys(query: { keys: readonly string[]; limit: number }): string[] {
  if (!Array.isArray(query?.keys) || query.keys.some((k) => typeof k !== 'string')) {
    throw invalidInput('linked() needs `keys`: an array of entity keys.');
  }
  if (!Number.isInteger(query.limit) || query.limit < 0) {
    throw invalidInput(`linked() needs a whole, non-negative \`limit\`, got ${query.limit}.`);
  }
  const { maxCount } = query as { maxCount?: unknown };
  if (maxCount !== undefined && !(Number.isInteger(maxCount) && (maxCount as number) >= 0)) {
    throw invalidInput(`linked() maxCount must be a whole, non-negative number when given, got ${String(maxCount)}.`);
  }
  return [...new Set(query.keys)];
}
