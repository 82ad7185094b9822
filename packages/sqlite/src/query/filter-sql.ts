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
import { ATTRIBUTE_COLUMNS } from '../schema/migrations';

/** Named parameters of a compiled statement (`@p0`, `@p1`, …). */
export type SqlParams = Record<string, unknown>;

/** Builds SQL text and its named parameters side by side. */
export class SqlBuilder {
  readonly params: SqlParams = {};
  private n = 0;

  /** Adds a parameter and returns its placeholder. */
  param(value: unknown): string {
    const name = `p${this.n++}`;
    this.params[name] = value;
    return `@${name}`;
  }
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const NUMERIC = `IN ('integer', 'real')`;

/**
 * Value and JSON type of an attribute. Indexed attributes are read from their
 * own column (so that the index applies); others by JSON path, inlined when
 * identifier-like, else bound.
 */
function attributePath(key: string, b: SqlBuilder, alias: string): { value: string; type: string } {
  if (key.includes('"')) throw invalidInput(`Attribute names cannot contain '"' (got ${JSON.stringify(key)}).`);
  const path = IDENTIFIER.test(key) ? `'$.${key}'` : b.param(`$."${key}"`);
  const column = Object.hasOwn(ATTRIBUTE_COLUMNS, key) ? ATTRIBUTE_COLUMNS[key] : undefined;
  return {
    value: column ? `${alias}.${column}` : `json_extract(${alias}.attributes, ${path})`,
    type: `json_type(${alias}.attributes, ${path})`,
  };
}

// Each predicate is TRUE or FALSE/NULL; NULL only ever means "no match", and negations coalesce it first.
function equals(x: { value: string; type: string }, v: AttributeValue, b: SqlBuilder): string {
  if (v === null) return `${x.value} IS NULL`;
  if (typeof v === 'boolean') return `${x.type} = '${v ? 'true' : 'false'}'`;
  if (typeof v === 'number') return `(${x.type} ${NUMERIC} AND ${x.value} = ${b.param(v)})`;
  return `${x.value} = ${b.param(v)}`;
}

function oneOf(x: { value: string; type: string }, values: readonly AttributeValue[], b: SqlBuilder): string {
  const strings = values.filter((v): v is string => typeof v === 'string');
  const numbers = values.filter((v): v is number => typeof v === 'number');
  const parts: string[] = [];
  if (strings.length === 1) parts.push(equals(x, strings[0]!, b));
  else if (strings.length > 1)
    parts.push(`${x.value} IN (SELECT value FROM json_each(${b.param(JSON.stringify(strings))}))`);
  if (numbers.length > 0) {
    parts.push(
      `(${x.type} ${NUMERIC} AND ${x.value} IN (SELECT value FROM json_each(${b.param(JSON.stringify(numbers))})))`,
    );
  }
  for (const v of [true, false, null]) if (values.includes(v)) parts.push(equals(x, v, b));
  return parts.length === 0 ? '0' : `(${parts.join(' OR ')})`;
}

function conditionSql(key: string, condition: AttributeCondition, b: SqlBuilder, alias: string): string {
  const x = attributePath(key, b, alias);
  if (condition === null || typeof condition !== 'object') return equals(x, checkFilterValue(condition, key), b);
  if ('in' in condition) return oneOf(x, filterValues(condition.in, key), b);
  if ('notIn' in condition) return `NOT coalesce(${oneOf(x, filterValues(condition.notIn, key), b)}, 0)`;
  if ('ne' in condition) return `NOT coalesce(${equals(x, checkFilterValue(condition.ne, key), b)}, 0)`;
  const parts = [`${x.type} ${NUMERIC}`];
  for (const [op, sql] of RANGE_OPERATORS) {
    const bound = condition[op];
    if (bound === undefined) continue;
    if (typeof bound !== 'number' || Number.isNaN(bound))
      throw invalidInput(`Filter on "${key}": ${op} needs a number.`);
    parts.push(`${x.value} ${sql} ${b.param(bound)}`);
  }
  return `(${parts.join(' AND ')})`;
}

export interface CompiledFilter {
  /** Conditions joined with AND (`1` when there are none). */
  sql: string;
  /** False when the filter can match nothing (an empty namespace list). */
  satisfiable: boolean;
}

/**
 * Compiles a RecordFilter to a WHERE clause over `records` (aliased `alias`),
 * with the semantics of core's `matchesFilter`: a missing attribute is null,
 * booleans and numbers never equal each other, ranges only match numbers.
 */
export function compileFilter(
  filter: RecordFilter,
  b: SqlBuilder,
  alias = 'r',
  options: { scope?: boolean } = {},
): CompiledFilter {
  if (!filter || (filter.tenant !== null && typeof filter.tenant !== 'string')) {
    throw invalidInput('A filter needs `tenant`: a string (one tenant) or null (every tenant).');
  }
  const parts: string[] = [];
  let satisfiable = true;
  if (options.scope !== false) {
    if (filter.tenant !== null) parts.push(`${alias}.tenant = ${b.param(filter.tenant)}`);
    if (filter.namespaces) {
      const ns = namespaceList(filter.namespaces);
      if (ns.length === 0) satisfiable = false;
      else if (ns.length === 1) parts.push(`${alias}.namespace = ${b.param(ns[0])}`);
      else parts.push(`${alias}.namespace IN (SELECT value FROM json_each(${b.param(JSON.stringify(ns))}))`);
    }
  }
  for (const [key, condition] of Object.entries(filter.where ?? {})) {
    if (condition === undefined) continue;
    parts.push(conditionSql(key, condition, b, alias));
  }
  return { sql: parts.length === 0 ? '1' : parts.join(' AND '), satisfiable };
}

/** A filter's namespaces, checked and without repeats. */
export const namespaceList = filterNamespaces;
