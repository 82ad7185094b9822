import type { EmbedOptions, EmbedResult, Embedder } from '../contracts';
import { invalidInput } from '../errors';
import { STOPWORDS, stem, words } from '../text';
import { fnv1a } from './fnv';
import { l2Normalize } from './vector-math';

export interface HashingEmbedderOptions {
  /** Vector size; default 384. */
  dimension?: number;
  /** Weight of word bigrams relative to words; default 0.5. */
  bigramWeight?: number;
  /** Weight of character n-grams (spelling variants, typos, compounds); default 0.4. */
  charWeight?: number;
  /** Length of those character n-grams; default 4. */
  charNgram?: number;
}

/**
 * The offline default embedder: signed feature hashing of stemmed words, word
 * bigrams and character 4-grams of the words (stop words left out of all
 * three), log term frequency, L2-normalised. No weights, no network,
 * deterministic. Its similarity is lexical overlap, not meaning, and it says
 * so (`lexical: true`) so recall weighs it accordingly. The defaults are the
 * best of those tried on the LoCoMo dev split (docs/benchmarks.md): 4-grams
 * at 0.4 find 47% of evidence in the top 10 where trigrams of every word at
 * 0.2 found 45%.
 */
export class HashingEmbedder implements Embedder {
  readonly specificationVersion = 'v1' as const;
  readonly id: string;
  readonly dimension: number;
  readonly lexical = true;
  /**
   * Lower than the 0.8 default because lexical cosine is lower for the same
   * edit: on short facts, one changed value ("PostgreSQL 14" vs "16": 0.80)
   * scores 0.45-0.85, related facts mostly below 0.60, unrelated ones below
   * 0.11. Measurements in docs/decay-and-conflicts.md.
   */
  readonly conflictThreshold = 0.65;
  private readonly bigramWeight: number;
  private readonly charWeight: number;
  private readonly charNgram: number;

  constructor(options: HashingEmbedderOptions = {}) {
    const dimension = options.dimension ?? 384;
    if (!Number.isInteger(dimension) || dimension < 16 || dimension > 65536) {
      throw invalidInput(`HashingEmbedder dimension must be an integer between 16 and 65536, got ${dimension}.`);
    }
    this.dimension = dimension;
    this.bigramWeight = options.bigramWeight ?? 0.5;
    this.charWeight = options.charWeight ?? 0.4;
    this.charNgram = options.charNgram ?? 4;
    if (!Number.isInteger(this.charNgram) || this.charNgram < 2 || this.charNgram > 8) {
      throw invalidInput(`HashingEmbedder charNgram must be an integer between 2 and 8, got ${options.charNgram}.`);
    }
    this.id = `agentmem/hashing-v1:${dimension}`;
  }

  async embed(texts: readonly string[], _options?: EmbedOptions): Promise<EmbedResult> {
    return { embeddings: texts.map((t) => this.embedOne(t)), usage: { calls: 0 } };
  }

  /** Synchronous form, for hot paths and tests. */
  embedOne(text: string): Float32Array {
    const counts = new Map<string, number>();
    const add = (feature: string, weight: number) => counts.set(feature, (counts.get(feature) ?? 0) + weight);
    // The same terms as tokenize(), keeping the unstemmed words for the character n-grams.
    const kept = words(text).filter((w) => !STOPWORDS.has(w));
    const terms = kept.map(stem);
    for (let i = 0; i < terms.length; i++) {
      add(`w:${terms[i]}`, 1);
      if (this.bigramWeight > 0 && i + 1 < terms.length) add(`b:${terms[i]} ${terms[i + 1]}`, this.bigramWeight);
    }
    if (this.charWeight > 0) {
      const n = this.charNgram;
      for (const w of kept) {
        const padded = `^${w}$`;
        for (let i = 0; i + n <= padded.length; i++) add(`c:${padded.slice(i, i + n)}`, this.charWeight);
      }
    }
    const v = new Float32Array(this.dimension);
    for (const [feature, weight] of counts) {
      const h = fnv1a(feature);
      const index = h % this.dimension;
      const sign = (fnv1a(feature, 0x9e3779b1) & 1) === 0 ? 1 : -1;
      v[index]! += sign * Math.log1p(weight);
    }
    return l2Normalize(v);
  }
}
