/**
 * LangGraph's search filter on item values: equality, or operators
 * `$eq $ne $gt $gte $lt $lte $in $nin` — the semantics of LangGraph's own stores.
 */
export function matchesValueFilter(
  value: Record<string, unknown>,
  filter: Record<string, unknown> | undefined,
): boolean {
  if (!filter) return true;
  return Object.entries(filter).every(([key, condition]) => compare(value[key], condition));
}

const OPERATORS = ['$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$in', '$nin'];

/** As LangGraph decides it: an object whose keys are all operators (so `{}` matches anything). */
function isOperators(condition: unknown): condition is Record<string, unknown> {
  return (
    typeof condition === 'object' && condition !== null && Object.keys(condition).every((k) => OPERATORS.includes(k))
  );
}

function compare(actual: unknown, condition: unknown): boolean {
  if (!isOperators(condition)) return actual === condition;
  return Object.keys(condition)
    .filter((op) => op.startsWith('$'))
    .every((op) => {
      const expected = condition[op];
      switch (op) {
        case '$eq':
          return actual === expected;
        case '$ne':
          return actual !== expected;
        case '$gt':
          return Number(actual) > Number(expected);
        case '$gte':
          return Number(actual) >= Number(expected);
        case '$lt':
          return Number(actual) < Number(expected);
        case '$lte':
          return Number(actual) <= Number(expected);
        case '$in':
          return Array.isArray(expected) ? expected.includes(actual) : false;
        case '$nin':
          return Array.isArray(expected) ? !expected.includes(actual) : true;
        default:
          return false;
      }
    });
}
