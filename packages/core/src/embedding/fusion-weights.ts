import { invalidInput } from '../errors';

/**
 * Checks fusion weights given by a user or an embedder: a NaN, negative or
 * all-zero weight would not fail, it would rank every result at score 0 or in
 * reverse, so it is refused where it is given (`where` names the option).
 */
export function checkFusionWeights(weights: unknown, where: string): void {
  if (weights === undefined) return;
  const w = weights as { dense?: unknown; keyword?: unknown } | null;
  const ok =
    w !== null &&
    typeof w === 'object' &&
    typeof w.dense === 'number' &&
    typeof w.keyword === 'number' &&
    Number.isFinite(w.dense) &&
    Number.isFinite(w.keyword) &&
    w.dense >= 0 &&
    w.keyword >= 0 &&
    w.dense + w.keyword > 0;
  if (!ok)
    throw invalidInput(
      `${where} needs { dense, keyword }: finite numbers of at least 0, not both 0, e.g. { dense: 1, keyword: 1 }; got ${JSON.stringify(weights)}.`,
      { field: where },
    );
}
