import {
  type EmbedOptions,
  type EmbedResult,
  type Embedder,
  fnv1a,
  invalidInput,
  l2Normalize,
  STOPWORDS,
  stem,
  words,
} from '@agentmem/core';
import { seededRandom } from './seeded-random';

export interface SemanticTestEmbedderOptions {
  /** Vector size; default 384. */
  dimension?: number;
  /** How many concepts words are grouped into; default 256. */
  concepts?: number;
  /** Share of a word's vector that comes from its concept (0..1); default 0.6. */
  conceptWeight?: number;
}

/**
 * A deterministic stand-in for a neural embedder, for tests and benches: each
 * stemmed word gets a dense pseudo-random direction that mixes its own
 * direction with the one of a concept it is hashed into, so texts that share
 * no word can still be similar (same concepts) and every vector is dense, as a
 * model's are. It declares itself non-lexical, so recall uses equal fusion
 * weights and always runs the dense search: the path every user of a real
 * embedding model takes. No weights, no network.
 */
export class SemanticTestEmbedder implements Embedder {
  readonly specificationVersion = 'v1' as const;
  readonly id: string;
  readonly dimension: number;
  readonly lexical = false;
  private readonly concepts: number;
  private readonly conceptWeight: number;
  private readonly wordVectors = new Map<string, Float32Array>();
  private readonly conceptVectors = new Map<number, Float32Array>();

  constructor(options: SemanticTestEmbedderOptions = {}) {
    this.dimension = options.dimension ?? 384;
    this.concepts = options.concepts ?? 256;
    this.conceptWeight = options.conceptWeight ?? 0.6;
    if (!Number.isInteger(this.dimension) || this.dimension < 8)
      throw invalidInput(`SemanticTestEmbedder dimension must be an integer >= 8, got ${options.dimension}.`);
    if (!Number.isInteger(this.concepts) || this.concepts < 1)
      throw invalidInput(`SemanticTestEmbedder concepts must be a positive integer, got ${options.concepts}.`);
    if (!(this.conceptWeight >= 0 && this.conceptWeight <= 1))
      throw invalidInput(`SemanticTestEmbedder conceptWeight must be between 0 and 1, got ${options.conceptWeight}.`);
    this.id = `agentmem/semantic-test-v1:${this.dimension}:${this.concepts}:${this.conceptWeight}`;
  }

  async embed(texts: readonly string[], _options?: EmbedOptions): Promise<EmbedResult> {
    return { embeddings: texts.map((t) => this.embedOne(t)), usage: { calls: 1 } };
  }

  /** Synchronous form, for benches. */
  embedOne(text: string): Float32Array {
    const v = new Float32Array(this.dimension);
    const terms = words(text)
      .filter((w) => !STOPWORDS.has(w))
      .map(stem);
    for (const term of terms) {
      const w = this.wordVector(term);
      for (let i = 0; i < v.length; i++) v[i]! += w[i]!;
    }
    if (terms.length === 0) v[0] = 1; // a text of stop words only still gets a valid (unit) vector
    return l2Normalize(v);
  }

  private wordVector(term: string): Float32Array {
    let w = this.wordVectors.get(term);
    if (w) return w;
    const own = gaussian(this.dimension, fnv1a(term));
    const concept = this.conceptVector(fnv1a(term, 0x5bd1e995) % this.concepts);
    const a = Math.sqrt(this.conceptWeight);
    const b = Math.sqrt(1 - this.conceptWeight);
    w = new Float32Array(this.dimension);
    for (let i = 0; i < w.length; i++) w[i] = a * concept[i]! + b * own[i]!;
    if (this.wordVectors.size >= 200_000) this.wordVectors.clear(); // bounded cache
    this.wordVectors.set(term, w);
    return w;
  }

  private conceptVector(index: number): Float32Array {
    let c = this.conceptVectors.get(index);
    if (!c) {
      c = gaussian(this.dimension, 0x9e3779b9 ^ index);
      this.conceptVectors.set(index, c);
    }
    return c;
  }
}

/** A unit vector of independent normal components (Box-Muller), seeded. */
function gaussian(dimension: number, seed: number): Float32Array {
  const random = seededRandom(seed);
  const v = new Float32Array(dimension);
  for (let i = 0; i < dimension; i += 2) {
    const r = Math.sqrt(-2 * Math.log(1 - random()));
    const t = 2 * Math.PI * random();
    v[i] = r * Math.cos(t);
    if (i + 1 < dimension) v[i + 1] = r * Math.sin(t);
  }
  return l2Normalize(v);
}
