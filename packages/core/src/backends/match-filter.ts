import type { AttributeCondition, AttributeValue, BackendRecord, RecordFilter } from '../contracts';

/**
 * Reference semantics of a RecordFilter, used by the in-memory backend and
 * the conformance suite. Backends that filter in their own query language
 * must agree with this.
 */
export function matchesFilter(record: BackendRecord, filter: RecordFilter): boolean {
  if (filter.tenant !== null && record.tenant !== filter.tenant) return false;
  if (filter.namespaces && !filter.namespaces.includes(record.namespace)) return false;
  if (filter.where) {
    for (const [key, condition] of Object.entries(filter.where)) {
      if (!matchesCondition(record.attributes[key] ?? null, condition)) return false;
    }
  }
  return true;
}

export function matchesCondition(value: AttributeValue, condition: AttributeCondition): boolean {
  if (condition === null || typeof condition !== 'object') return value === condition;
  if ('in' in condition) return condition.in.includes(value);
  if ('notIn' in condition) return !condition.notIn.includes(value);
  if ('ne' in condition) return value !== condition.ne;
  if (typeof value !== 'number') return false;
  if (condition.gt !== undefined && !(value > condition.gt)) return false;
  if (condition.gte !== undefined && !(value >= condition.gte)) return false;
  if (condition.lt !== undefined && !(value < condition.lt)) return false;
  if (condition.lte !== undefined && !(value <= condition.lte)) return false;
  return true;
}
