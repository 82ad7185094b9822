import type { SearchHit } from '../contracts';

/**
 * The hits with, among hits of exactly the same score, active records before the others (superseded
 * or pruned ones, which recall returns only when asked): a superseded memory and the one that replaced
 * it often tie ("PostgreSQL 14" / "PostgreSQL 16"), and a backend breaks a tie by id, which would put the
 * old one first as often as not. Any other order is kept, so the result stays deterministic.
 */
export function activeFirstOnTies<T extends SearchHit>(hits: T[]): T[] {
  const inactive = (h: T) =>
    h.record.attributes.status === undefined || h.record.attributes.status === 'active' ? 0 : 1;
  // Default recall returns active records only: nothing to move, no run to copy.
  if (!hits.some((h) => inactive(h) === 1)) return hits;
  let start = 0;
  while (start < hits.length) {
    let end = start + 1;
    while (end < hits.length && hits[end]!.score === hits[start]!.score) end++;
    if (end - start > 1) {
      // A stable sort of the run: actives keep their order, then the others keep theirs.
      const run = hits.slice(start, end).sort((a, b) => inactive(a) - inactive(b));
      hits.splice(start, run.length, ...run);
    }
    start = end;
  }
  return hits;
}
