import { CONTEXT_WEIGHT, fnv1a, tokenize } from '@agentmem/core';

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
/** The same assumption for a record's context (a few neighbouring turns or a source line). */
export const BM25_AVG_CONTEXT_TERMS = 48;

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
 * The stored sparse vector of a text and its optional context, BM25F-style:
 * per term, each field's frequency normalised by its length
 * (`tf / (1 - b + b len / avg)`), the context's weighted by CONTEXT_WEIGHT,
 * then saturated once, `f (k1 + 1) / (f + k1)`. Qdrant multiplies by idf at
 * query time (`modifier: "idf"`), which completes BM25. Terms whose hashes
 * collide are merged (summed) so indices are unique. `undefined` when there
 * are no terms: Qdrant stores no sparse vector then.
 */
export function documentSparseVector(text: string, context?: string): SparseVector | undefined {
  const f = new Map<number, number>();
  const add = (terms: string[], weight: number, avg: number) => {
    const norm = 1 - BM25_B + (BM25_B * terms.length) / avg;
    for (const t of terms) {
      const i = termIndex(t);
      f.set(i, (f.get(i) ?? 0) + weight / norm);
    }
  };
  add(tokenize(text), 1, BM25_AVG_TERMS);
  if (context) add(tokenize(context), CONTEXT_WEIGHT, BM25_AVG_CONTEXT_TERMS);
  const weights = new Map<number, number>();
  for (const [i, x] of f) weights.set(i, (x * (BM25_K1 + 1)) / (x + BM25_K1));
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
