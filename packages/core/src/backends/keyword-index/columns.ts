// The attribute columns a keyword index holds per document, and the tests a filter compiles for them.

import type { AttributeCondition } from '../../contracts';
import { matchesCondition } from '../match-filter';

/** A filterable attribute: an interned label per slot (-1 for a number) and the number itself. */
export interface Column {
  key: string;
  labels: Int32Array;
  numbers: Float64Array;
}

/** One compiled condition on a column. */
export interface ColumnTest {
  column: Column;
  /** Whether each interned label passes. */
  labelOk: Uint8Array;
  /** Whether a number passes. */
  numberOk: (x: number) => boolean;
}

export function passes(tests: readonly ColumnTest[], s: number): boolean {
  for (const t of tests) {
    const label = t.column.labels[s]!;
    if (label >= 0 ? t.labelOk[label] === 0 : !t.numberOk(t.column.numbers[s]!)) return false;
  }
  return true;
}

export function numberTest(condition: AttributeCondition): (x: number) => boolean {
  if (typeof condition === 'number') return (x) => x === condition;
  if (condition === null || typeof condition !== 'object') return () => false;
  if ('in' in condition || 'notIn' in condition || 'ne' in condition) return (x) => matchesCondition(x, condition);
  const { gt, gte, lt, lte } = condition;
  return (x) =>
    (gt === undefined || x > gt) &&
    (gte === undefined || x >= gte) &&
    (lt === undefined || x < lt) &&
    (lte === undefined || x <= lte);
}
