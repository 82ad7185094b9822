import { fnv1a, tokenize } from '@agentmem/core';

/** BM25 term-frequency saturation. */
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;
/**
 * Document length (in terms) that BM25 length normalisation is relative to.
 * Qdrant applies idf server-side but knows nothing of document lengths, so the
 * average is a fixed assumption (memories are a sentence or two), as in
 * FastEmbed's BM25.
 */
export const BM25_AVG_TERMS = 16;

export interface SparseVector {
  indices: number[];
  values: number[];
}

/** Term index: a stable 32-bit hash of the term (colliding terms share a dimension). */
export function termIndex(term: string): number {
  return fnv1a(term);
}

function toSparse(weights: Map<number, number>): SparseVector | undefined {
  if (weights.size === 0) return undefined;
  const indices = [...weights.keys()].sort((a, b) => a - b);
  return { indices, values: indices.map((i) => weights.get(i)!) };
}

/**
 * The stored sparse vector of a text: per term, BM25's saturated term
 * frequency `tf (k1 + 1) / (tf + k1 (1 - b + b len / avg))`. Qdrant multiplies
 * by idf at query time (`modifier: "idf"`), which completes BM25. Terms whose
 * hashes collide are merged (summed) so indices are unique. `undefined` when
 * the text has no terms: Qdrant stores no sparse vector then.
 */
export function documentSparseVector(text: string): SparseVector | undefined {
  const terms = tokenize(text);
  const tf = new Map<number, number>();
  for (const t of terms) {
    const i = termIndex(t);
    tf.set(i, (tf.get(i) ?? 0) + 1);
  }
  const norm = 1 - BM25_B + (BM25_B * terms.length) / BM25_AVG_TERMS;
  const weights = new Map<number, number>();
  for (const [i, f] of tf) weights.set(i, (f * (BM25_K1 + 1)) / (f + BM25_K1 * norm));
  return toSparse(weights);
}

/** The query sparse vector: weight 1 per distinct term (idf is applied by Qdrant). */
export function querySparseVector(text: string): SparseVector | undefined {
  const weights = new Map<number, number>();
  for (const t of new Set(tokenize(text))) {
    const i = termIndex(t);
    weights.set(i, (weights.get(i) ?? 0) + 1);
  }
  return toSparse(weights);
}
