/**
 * Qdrant's filter semantics over stored points: `must` (all), `should` (at
 * least one, when present), `must_not` (none), `min_should`; field conditions
 * `match.value` / `match.any` / `match.except`, `range`, `is_empty`,
 * `is_null`, `has_id`; a missing field fails every field condition except
 * `is_empty`; an array field matches when any element does.
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type Filter = {
  must?: unknown;
  should?: unknown;
  must_not?: unknown;
  min_should?: { conditions: unknown[]; min_count: number } | null;
};

export interface FilterablePoint {
  id: string | number;
  payload: Record<string, Json>;
}

export class UnsupportedByFake extends Error {}

const list = (v: unknown): unknown[] => (v === undefined || v === null ? [] : Array.isArray(v) ? v : [v]);

export function matchesFilter(point: FilterablePoint, filter: Filter | null | undefined): boolean {
  if (!filter) return true;
  const must = list(filter.must);
  const should = list(filter.should);
  const mustNot = list(filter.must_not);
  if (!must.every((c) => matchesCondition(point, c))) return false;
  if (should.length > 0 && !should.some((c) => matchesCondition(point, c))) return false;
  if (mustNot.some((c) => matchesCondition(point, c))) return false;
  if (filter.min_should) {
    const n = filter.min_should.conditions.filter((c) => matchesCondition(point, c)).length;
    if (n < filter.min_should.min_count) return false;
  }
  return true;
}

/** Values at a dotted payload path (arrays along the way are flattened, as Qdrant does). */
export function valuesAt(payload: Record<string, Json>, key: string): Json[] {
  let current: Json[] = [payload as Json];
  for (const part of key.split('.')) {
    const next: Json[] = [];
    for (const v of current) {
      if (v !== null && typeof v === 'object' && !Array.isArray(v) && part in v) {
        const child = v[part]!;
        if (Array.isArray(child)) next.push(...child);
        else next.push(child);
      }
    }
    current = next;
  }
  return current;
}

function hasField(payload: Record<string, Json>, key: string): boolean {
  return valuesAt(payload, key).length > 0;
}

function matchesCondition(point: FilterablePoint, condition: unknown): boolean {
  const c = condition as Record<string, unknown>;
  if ('has_id' in c)
    return (c.has_id as (string | number)[]).some((id) => String(id).toLowerCase() === String(point.id));
  if ('is_empty' in c) return isEmpty(point.payload, (c.is_empty as { key: string }).key);
  if ('is_null' in c) return isNull(point.payload, (c.is_null as { key: string }).key);
  // Conditions are untagged: an object with only filter keys (or none) is a nested Filter.
  if (Object.keys(c).every((k) => ['must', 'should', 'must_not', 'min_should'].includes(k)))
    return matchesFilter(point, c as Filter);
  if ('has_vector' in c || 'nested' in c) throw new UnsupportedByFake(`condition ${Object.keys(c).join(',')}`);
  if (typeof c.key !== 'string') throw new UnsupportedByFake(`condition ${JSON.stringify(c)}`);
  const key = c.key;
  if (c.is_empty === true || c.is_empty === false) return isEmpty(point.payload, key) === c.is_empty;
  if (c.is_null === true || c.is_null === false) return isNull(point.payload, key) === c.is_null;
  const values = valuesAt(point.payload, key).filter((v) => v !== null);
  if (c.match) {
    const m = c.match as Record<string, unknown>;
    if ('value' in m) return values.some((v) => v === m.value);
    if ('any' in m) return values.some((v) => (m.any as Json[]).includes(v));
    if ('except' in m) return values.length > 0 && values.some((v) => !(m.except as Json[]).includes(v));
    throw new UnsupportedByFake(`match ${Object.keys(m).join(',')}`);
  }
  if (c.range) {
    const r = c.range as { gt?: number | null; gte?: number | null; lt?: number | null; lte?: number | null };
    for (const bound of Object.values(r)) {
      if (typeof bound === 'string') throw new UnsupportedByFake('datetime range');
    }
    return values.some(
      (v) =>
        typeof v === 'number' &&
        (r.gt == null || v > r.gt) &&
        (r.gte == null || v >= r.gte) &&
        (r.lt == null || v < r.lt) &&
        (r.lte == null || v <= r.lte),
    );
  }
  throw new UnsupportedByFake(`field condition ${JSON.stringify(c)}`);
}

/** Missing, null or an empty array. */
function isEmpty(payload: Record<string, Json>, key: string): boolean {
  return valuesAt(payload, key).every((v) => v === null) || !hasField(payload, key);
}

function isNull(payload: Record<string, Json>, key: string): boolean {
  return valuesAt(payload, key).some((v) => v === null);
}
