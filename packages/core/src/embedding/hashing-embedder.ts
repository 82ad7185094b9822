import type { EmbedOptions, EmbedResult, Embedder } from '../contracts';
import { invalidInput } from '../errors';
import { tokenize, words } from '../text';
import { fnv1a } from './fnv';
import { l2Normalize } from './vector-math';

export interface HashingEmbedderOptions {
  /** Vector size; default 384. */
  dimension?: number;
  /** Weight of word bigrams relative to words; default 0.5. */
  bigramWeight?: number;
  /** Weight of character trigrams (spelling variants, compounds); default 0.2. */
  charWeight?: number;
}

/**
 * The offline default embedder: signed feature hashing of stemmed words, word
 * bigrams and character trigrams, log term frequency, L2-normalised. No
 * weights, no network, deterministic. Its similarity is lexical overlap, not
 * meaning, and it says so (`lexical: true`) so recall weighs it accordingly.
 */
export class HashingEmbedder implements Embedder {
  readonly specificationVersion = 'v1' as const;
  readonly id: string;
  readonly dimension: number;
  readonly lexical = true;
  /**
   * Lower than the 0.8 default because lexical cosine is lower for the same
   * edit: on short facts, one changed value ("PostgreSQL 14" vs "16") scores
   * 0.66-0.84 (the seed example 0.73), related facts mostly below 0.61,
   * unrelated ones below 0.15. Measurements in docs/decay-and-conflicts.md.
   */
  readonly conflictThreshold = 0.65;
  private readonly bigramWeight: number;
  private readonly charWeight: number;

  constructor(options: HashingEmbedderOptions = {}) {
    const dimension = options.dimension ?? 384;
    if (!Number.isInteger(dimension) || dimension < 16 || dimension > 65536) {
      throw invalidInput(`HashingEmbedder dimension must be an integer between 16 and 65536, got ${dimension}.`);
    }
    this.dimension = dimension;
    this.bigramWeight = options.bigramWeight ?? 0.5;
    this.charWeight = options.charWeight ?? 0.2;
    this.id = `agentmem/hashing-v1:${dimension}`;
  }

  async embed(texts: readonly string[], _options?: EmbedOptions): Promise<EmbedResult> {
    return { embeddings: texts.map((t) => this.embedOne(t)), usage: { calls: 0 } };
  }

  /** Synchronous form, for hot paths and tests. */
  embedOne(text: string): Float32Array {
    const counts = new Map<string, number>();
    const add = (feature: string, weight: number) => counts.set(feature, (counts.get(feature) ?? 0) + weight);
    const terms = tokenize(text);
    for (let i = 0; i < terms.length; i++) {
      add(`w:${terms[i]}`, 1);
      if (i + 1 < terms.length) add(`b:${terms[i]} ${terms[i + 1]}`, this.bigramWeight);
    }
    if (this.charWeight > 0) {
      for (const w of words(text)) {
        const padded = `^${w}$`;
        for (let i = 0; i + 3 <= padded.length; i++) add(`c:${padded.slice(i, i + 3)}`, this.charWeight);
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
