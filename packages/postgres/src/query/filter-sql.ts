import {
  type AttributeCondition,
  type AttributeValue,
  checkFilterValue,
  filterNamespaces,
  filterValues,
  invalidInput,
  RANGE_OPERATORS,
  type RecordFilter,
} from '@agentmem/core';
import { occurredAtBound } from './occurred-at';
import type { SqlBuilder } from './sql-builder';

// Every predicate below is TRUE or FALSE, never NULL (attributes is NOT NULL), so negations are safe.
// Equality is jsonb containment: type-aware (true never equals 1) and served by the GIN index on attributes.
function equals(key: string, v: AttributeValue, b: SqlBuilder, alias: string): string {
  if (v === null) return `coalesce(${alias}.attributes -> ${b.param(key)}, 'null'::jsonb) = 'null'::jsonb`;
  return `${alias}.attributes @> ${b.param(JSON.stringify({ [key]: v }))}::jsonb`;
}

function oneOf(key: string, values: readonly AttributeValue[], b: SqlBuilder, alias: string): string {
  const distinct = [...new Set(values)];
  if (distinct.length === 0) return 'false';
  return `(${distinct.map((v) => equals(key, v, b, alias)).join(' OR ')})`;
}

function conditionSql(key: string, condition: AttributeCondition, b: SqlBuilder, alias: string): string {
  if (condition === null || typeof condition !== 'object')
    return equals(key, checkFilterValue(condition, key), b, alias);
  if ('in' in condition) return oneOf(key, filterValues(condition.in, key), b, alias);
  if ('notIn' in condition) return `NOT ${oneOf(key, filterValues(condition.notIn, key), b, alias)}`;
  if ('ne' in condition) return `NOT (${equals(key, checkFilterValue(condition.ne, key), b, alias)})`;
  return rangeSql(key, condition, b, alias);
}

/**
 * Ranges only match numbers. Event-time ranges (recall's after/before) compare
 * the occurred_at column, which mirrors the attribute, on the (tenant,
 * namespace, occurred_at) index; a record without one matches no range. Never NULL.
 */
function rangeSql(
  key: string,
  condition: { gt?: number; gte?: number; lt?: number; lte?: number },
  b: SqlBuilder,
  alias: string,
): string {
  const occurred = key === 'occurredAt';
  const k = occurred ? '' : b.param(key);
  // The CASE keeps the cast away from strings whatever order the planner picks.
  const value = `CASE WHEN jsonb_typeof(${alias}.attributes -> ${k}) = 'number' THEN (${alias}.attributes ->> ${k})::numeric END`;
  const parts = [
    occurred ? `${alias}.occurred_at IS NOT NULL` : `jsonb_typeof(${alias}.attributes -> ${k}) = 'number'`,
  ];
  for (const [op, sql] of RANGE_OPERATORS) {
    const bound = condition[op];
    if (bound === undefined) continue;
    if (typeof bound !== 'number' || !Number.isFinite(bound))
      throw invalidInput(`Filter on "${key}": ${op} needs a finite number.`);
    parts.push(
      occurred
        ? `${alias}.occurred_at ${sql} ${b.param(occurredAtBound(op, bound))}::timestamptz`
        : `coalesce(${value} ${sql} ${b.param(String(bound))}::numeric, false)`,
    );
  }
  return `(${parts.join(' AND ')})`;
}

export interface CompiledFilter {
  /** Conditions joined with AND (`true` when there are none). */
  sql: string;
  /** False when the filter can match nothing (an empty namespace list). */
  satisfiable: boolean;
}

/**
 * Compiles a RecordFilter to a WHERE clause over the records table (aliased
 * `alias`) with the semantics of core's `matchesFilter`: a missing attribute
 * is null, booleans and numbers never equal each other, ranges only match numbers.
 */
export function compileFilter(filter: RecordFilter, b: SqlBuilder, alias = 'r'): CompiledFilter {
  if (!filter || typeof filter !== 'object' || (filter.tenant !== null && typeof filter.tenant !== 'string')) {
    throw invalidInput('A filter needs `tenant`: a string (one tenant) or null (every tenant).');
  }
  const parts: string[] = [];
  let satisfiable = true;
  if (filter.tenant !== null) parts.push(`${alias}.tenant = ${b.param(filter.tenant)}`);
  if (filter.namespaces !== undefined) {
    const ns = namespaceList(filter.namespaces);
    if (ns.length === 0) satisfiable = false;
    else if (ns.length === 1) parts.push(`${alias}.namespace = ${b.param(ns[0])}`);
    else parts.push(`${alias}.namespace = ANY(${b.param(ns)}::text[])`);
  }
  if (filter.where !== undefined && (filter.where === null || typeof filter.where !== 'object'))
    throw invalidInput('`where` must be an object of attribute conditions.');
  for (const [key, condition] of Object.entries(filter.where ?? {})) {
    if (condition === undefined) continue;
    parts.push(conditionSql(key, condition, b, alias));
  }
  return { sql: parts.length === 0 ? 'true' : parts.join(' AND '), satisfiable };
}

/** A filter's namespaces, checked and without repeats. */
export const namespaceList = filterNamespaces;
