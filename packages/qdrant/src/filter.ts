import type { AttributeCondition, AttributeValue, RecordFilter } from '@agentmem/core';
import { invalidInput } from '@agentmem/core';
import type { Schemas } from '@qdrant/js-client-rest';
import { ATTRIBUTE_KEY, attributePath, FIELD } from './layout';

type Condition = Schemas['Condition'];
type Filter = Schemas['Filter'];

/** `null` when the filter can match nothing (an empty namespace or `in` list): callers skip the request. */
export function toQdrantFilter(filter: RecordFilter): Filter | null {
  const must: Condition[] = [];
  const mustNot: Condition[] = [];
  if (filter.tenant !== null) must.push({ key: FIELD.tenant, match: { value: filter.tenant } });
  if (filter.namespaces) {
    if (filter.namespaces.length === 0) return null;
    must.push({ key: FIELD.namespace, match: { any: unique(filter.namespaces) as string[] } });
  }
  for (const [key, condition] of Object.entries(filter.where ?? {})) {
    assertAttributeKey(key);
    const path = attributePath(key);
    if (condition !== null && typeof condition === 'object') {
      if ('in' in condition) {
        const c = anyOf(path, condition.in);
        if (c === null) return null;
        must.push(c);
      } else if ('notIn' in condition) {
        const c = anyOf(path, condition.notIn);
        if (c !== null) mustNot.push(c);
      } else if ('ne' in condition) {
        mustNot.push(equals(path, condition.ne));
      } else {
        must.push(range(path, condition));
      }
    } else {
      must.push(equals(path, condition));
    }
  }
  const out: Filter = {};
  if (must.length > 0) out.must = must;
  if (mustNot.length > 0) out.must_not = mustNot;
  return out;
}

export function assertAttributeKey(key: string): void {
  if (!ATTRIBUTE_KEY.test(key)) {
    throw invalidInput(
      `Attribute key "${key}" cannot be stored in Qdrant: use letters, digits, "_" and "-" only (dots and brackets are payload path syntax).`,
      { key },
    );
  }
}

/**
 * Equality with matchesFilter's semantics: a missing attribute equals null
 * (Qdrant's `is_empty`: missing, null or []); numbers compare numerically
 * with a closed range (`match.value` takes no floats, and a range works on
 * integer and float indexes alike).
 */
function equals(path: string, value: AttributeValue): Condition {
  if (value === null) return { is_empty: { key: path } };
  if (typeof value === 'number') return { key: path, range: { gte: value, lte: value } };
  return { key: path, match: { value } };
}

function anyOf(path: string, values: readonly AttributeValue[]): Condition | null {
  const distinct = unique(values);
  if (distinct.length === 0) return null;
  const strings = distinct.filter((v): v is string => typeof v === 'string');
  const others = distinct.filter((v) => typeof v !== 'string');
  const options: Condition[] = [];
  if (strings.length > 0) options.push({ key: path, match: { any: strings } });
  for (const v of others) options.push(equals(path, v));
  return options.length === 1 ? options[0]! : { should: options };
}

function range(
  path: string,
  c: Exclude<AttributeCondition, AttributeValue | { in: unknown } | { notIn: unknown } | { ne: unknown }>,
): Condition {
  const r: Schemas['Range'] = {};
  for (const bound of ['gt', 'gte', 'lt', 'lte'] as const) {
    const v = c[bound];
    if (v === undefined) continue;
    if (typeof v !== 'number' || Number.isNaN(v))
      throw invalidInput(`Range bound ${bound} of "${path}" must be a number.`);
    r[bound] = v;
  }
  return { key: path, range: r };
}

function unique<T>(values: readonly T[]): T[] {
  return [...new Set(values)];
}
