import type { EmbedOptions, EmbedResult, Embedder } from '../contracts';
import { invalidInput } from '../errors';
import { STOPWORDS, words } from '../text';
import { checkFusionWeights } from './fusion-weights';
import { l2Normalize } from './vector-math';
import type { WordVectors } from './word-vectors';

export interface WordVectorEmbedderOptions {
  /**
   * SIF's a: a word weighs a / (a + p(w)), p(w) its frequency estimated from its rank (Zipf), so
   * frequent words weigh little and rare ones ~1. Default 1e-3.
   */
  sifA?: number;
  /**
   * The weights recall fuses this embedder's dense list with keyword relevance by; default dense
   * 0.05, keyword 1. Equal weights lost 15 points of LoCoMo R@10 (docs/benchmarks.md, "Word vectors"):
   * an averaged word vector tells topics apart, not which turn answers, so it refines the keyword
   * ranking rather than competing with it.
   */
  fusionWeights?: { dense: number; keyword: number };
  /**
   * Take the direction all texts share out of each embedding (SIF's common component, here the
   * frequency-weighted mean of the vectors), so unrelated texts score near 0 rather than ~0.5.
   * Default true.
   */
  removeCommon?: boolean;
}

/**
 * An embedder from static word vectors (GloVe, fastText, word2vec): the SIF-weighted mean of a
 * text's words' vectors (stop words and words without a vector left out), L2-normalised. Unlike
 * `HashingEmbedder` its similarity carries word meaning ("pottery" is near "painting" and
 * "hobbies"), with no model to run: an embedding is ~100 lookups and adds. Load the vectors with
 * `loadWordVectors` (docs/core.md, "Word vectors").
 */
export class WordVectorEmbedder implements Embedder {
  readonly specificationVersion = 'v1' as const;
  readonly id: string;
  readonly dimension: number;
  readonly lexical = false;
  readonly fusionWeights: { readonly dense: number; readonly keyword: number };
  private readonly weights: Float32Array;
  /** The direction every text shares (unit length), taken out of each embedding; zeros for none. */
  private readonly common: Float32Array;

  constructor(
    private readonly vectors: WordVectors,
    options: WordVectorEmbedderOptions = {},
  ) {
    const a = options.sifA ?? 1e-3;
    if (!(a > 0 && a < 1)) throw invalidInput(`WordVectorEmbedder sifA must be between 0 and 1, got ${a}.`);
    this.dimension = vectors.dimension;
    checkFusionWeights(options.fusionWeights, 'WordVectorEmbedder fusionWeights');
    this.fusionWeights = Object.freeze({ ...(options.fusionWeights ?? DEFAULT_FUSION_WEIGHTS) });
    // Zipf: the word of rank r (1-based) has p(r) = 1 / (r * H_n), H_n ~ ln n + 0.5772.
    const n = vectors.size;
    const h = Math.log(n) + 0.5772;
    this.weights = new Float32Array(n);
    for (let r = 0; r < n; r++) this.weights[r] = a / (a + 1 / ((r + 1) * h));
    this.common = new Float32Array(this.dimension);
    if (options.removeCommon ?? true) {
      // The expected embedding of a text: each word's SIF-weighted vector times its frequency.
      for (let r = 0; r < n; r++) vectors.addTo(this.common, r, this.weights[r]! / ((r + 1) * h));
      l2Normalize(this.common);
    }
    // The word count too: `maxWords` changes every weight and the common direction.
    this.id = `agentmem/word-vectors-v1:${vectors.name}:${vectors.size}w:${vectors.dimension}:sif${a}${options.removeCommon === false ? '' : ':rc'}`;
  }

  async embed(texts: readonly string[], _options?: EmbedOptions): Promise<EmbedResult> {
    return { embeddings: texts.map((t) => this.embedOne(t)), usage: { calls: 0 } };
  }

  /** Synchronous form, for hot paths and tests. */
  embedOne(text: string): Float32Array {
    const v = new Float32Array(this.dimension);
    for (const w of words(text)) {
      if (STOPWORDS.has(w)) continue;
      const i = this.vectors.indexOf(w);
      if (i < 0) continue;
      this.vectors.addTo(v, i, this.weights[i]!);
    }
    let along = 0;
    for (let d = 0; d < v.length; d++) along += v[d]! * this.common[d]!;
    for (let d = 0; d < v.length; d++) v[d]! -= along * this.common[d]!;
    return l2Normalize(v);
  }
}

const DEFAULT_FUSION_WEIGHTS = { dense: 0.05, keyword: 1 };
