import type { AttributeValue } from './attribute-value';

/**
 * A condition on one attribute. A bare value means equality; a missing
 * attribute equals `null`.
 */
export type AttributeCondition =
  | AttributeValue
  | { in: readonly AttributeValue[] }
  | { notIn: readonly AttributeValue[] }
  | { ne: AttributeValue }
  | { gt?: number; gte?: number; lt?: number; lte?: number };
