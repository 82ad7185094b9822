import type { SearchHit } from '../contracts';

/** The usual reciprocal rank fusion constant. */
export const RRF_K = 60;

/**
 * Weighted reciprocal rank fusion of a dense and a keyword list:
 * `score = w_dense / (k + rank_dense) + w_keyword / (k + rank_keyword)`.
 * Hits keep the per-signal ranks and raw scores.
 */
export function fuseRrf(
  dense: readonly SearchHit[],
  keyword: readonly SearchHit[],
  weights: { dense: number; keyword: number },
  k: number,
  rrfK = RRF_K,
): SearchHit[] {
  const byId = new Map<string, SearchHit>();
  dense.forEach((hit, i) => {
    byId.set(hit.record.id, {
      record: hit.record,
      score: weights.dense / (rrfK + i + 1),
      dense: { rank: i + 1, score: hit.score },
    });
  });
  keyword.forEach((hit, i) => {
    const contribution = weights.keyword / (rrfK + i + 1);
    const existing = byId.get(hit.record.id);
    if (existing) {
      existing.score += contribution;
      existing.keyword = { rank: i + 1, score: hit.score };
      if (hit.entity) existing.entity = hit.entity;
    } else {
      const entity = hit.entity ? { entity: hit.entity } : {};
      byId.set(hit.record.id, { record: hit.record, score: contribution, keyword: { rank: i + 1, score: hit.score }, ...entity });
    }
  });
  return [...byId.values()].sort((a, b) => b.score - a.score || (a.record.id < b.record.id ? -1 : 1)).slice(0, k);
}

/**
 * Keyword-first fusion, for a dense list that is a noisier copy of the
 * keyword one (a lexical embedder): the keyword hits keep their order (exact
 * score ties broken by dense similarity) and dense-only hits fill the ranks
 * after them. Hybrid can therefore never rank worse than keyword alone, at
 * any cut-off. Scores stay on the RRF scale (`(w_dense + w_keyword) / (k + rank)`
 * for keyword hits, `w_dense / (k + rank)` for the fill) and fall with rank.
 */
export function fuseKeywordFirst(
  dense: readonly SearchHit[],
  keyword: readonly SearchHit[],
  weights: { dense: number; keyword: number },
  k: number,
  rrfK = RRF_K,
): SearchHit[] {
  const denseById = new Map(dense.map((hit, i) => [hit.record.id, { rank: i + 1, score: hit.score }]));
  const ordered = keyword
    .map((hit, i) => ({ hit, match: { rank: i + 1, score: hit.score }, dense: denseById.get(hit.record.id) }))
    .sort((a, b) => b.hit.score - a.hit.score || (b.dense?.score ?? -1) - (a.dense?.score ?? -1) || a.match.rank - b.match.rank);
  const fused: SearchHit[] = ordered.map(({ hit, match, dense: d }, i) => ({
    record: hit.record,
    score: (weights.dense + weights.keyword) / (rrfK + i + 1),
    keyword: match,
    ...(d ? { dense: d } : {}),
    ...(hit.entity ? { entity: hit.entity } : {}),
  }));
  const seen = new Set(keyword.map((h) => h.record.id));
  for (const hit of dense) {
    if (fused.length >= k) break;
    if (seen.has(hit.record.id)) continue;
    fused.push({ record: hit.record, score: weights.dense / (rrfK + fused.length + 1), dense: denseById.get(hit.record.id)! });
  }
  return fused.slice(0, k);
}

/**
 * A fused score on an absolute 0..1 scale: 1 means first in every list.
 * `totalWeight` is the sum of the weights of the lists that were fused.
 */
export function fusedRelevance(score: number, totalWeight: number): number {
  return totalWeight > 0 ? Math.min(1, (score * (RRF_K + 1)) / totalWeight) : 0;
}
