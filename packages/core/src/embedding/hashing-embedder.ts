import type { EmbedOptions, EmbedResult, Embedder } from '../contracts';
import { invalidInput } from '../errors';
import { STOPWORDS, stem, words } from '../text';
import { fnv1a, fnvStep } from './fnv';
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

  /**
   * The batch's vectors share one buffer, each a view of its own range: copy one
   * (`Float32Array.from(v)`) to keep it without the rest, and read `v.buffer` with
   * `byteOffset`. `embedOne` gives a vector its own buffer.
   */
  async embed(texts: readonly string[], _options?: EmbedOptions): Promise<EmbedResult> {
    // One allocation for the batch: a Float32Array of its own (1.5 KB at 384 dims, outside V8's heap)
    // cost ~6 us, a fifth of an embedding.
    const slab = new Float32Array(this.dimension * texts.length);
    const embeddings = texts.map((t, i) =>
      this.embedInto(t, slab.subarray(i * this.dimension, (i + 1) * this.dimension)),
    );
    return { embeddings, usage: { calls: 0 } };
  }

  /** Synchronous form, for hot paths and tests. */
  embedOne(text: string): Float32Array {
    return this.embedInto(text, new Float32Array(this.dimension));
  }

  /** The embedding of `text` written into `v` (zeros, `dimension` long). */
  private embedInto(text: string, v: Float32Array): Float32Array {
    // Features in first-seen order with their summed weights; the order is the order of the sums
    // below, so it is kept exactly (the vectors of stored memories must not change).
    const counts = new Map<string, number>();
    // The same terms as tokenize(), keeping the unstemmed words for the character n-grams. Loops over
    // arrays of one kind, not `filter` and `map`: the arrays those gave had more than one hidden class
    // (an empty text's, a builtin's, the compiled code's own), and V8 threw the compiled embedInto
    // away at the first other one ("wrong map") and compiled it again.
    const kept = keptWords(text);
    const bigram = this.bigramWeight;
    let term = kept.length > 0 ? stem(kept[0]!) : '';
    for (let i = 0; i < kept.length; i++) {
      addCount(counts, `w:${term}`, 1);
      if (i + 1 < kept.length) {
        const next = stem(kept[i + 1]!);
        if (bigram > 0) addCount(counts, `b:${term} ${next}`, bigram);
        term = next;
      }
    }
    for (const [feature, weight] of counts) this.addFeature(v, fnv1a(feature), fnv1a(feature, SIGN_SEED), weight);
    if (this.charWeight > 0) this.addCharGrams(v, kept);
    return l2Normalize(v);
  }

  private addFeature(v: Float32Array, h: number, signHash: number, weight: number): void {
    v[h % this.dimension]! += ((signHash & 1) === 0 ? 1 : -1) * Math.log1p(weight);
  }

  /**
   * The character n-grams of `^word$`, as the features `c:<gram>` in first-seen order (all after the
   * word and bigram features). A gram of n <= 4 ASCII characters is keyed by its packed codes instead
   * of a string: building and hashing ~50 short strings a text was about a seventh of an embedding. Packed
   * and string keys never meet (a gram is one or the other), so the counts are those of the strings.
   */
  private addCharGrams(v: Float32Array, kept: readonly string[]): void {
    const n = this.charNgram;
    const grams = new Map<number | string, number>();
    for (const w of kept) {
      const padded = `^${w}$`;
      for (let i = 0; i + n <= padded.length; i++) {
        const packed = n <= 4 ? packGram(padded, i, n) : -1;
        const key = packed >= 0 ? packed : padded.slice(i, i + n);
        grams.set(key, (grams.get(key) ?? 0) + this.charWeight);
      }
    }
    for (const [key, weight] of grams) {
      // fnv1a of `c:<gram>` with both seeds, continued from the prefix's states in one pass.
      let h = GRAM_PREFIX;
      let signHash = GRAM_PREFIX_SIGN;
      for (let j = 0; j < n; j++) {
        const c = typeof key === 'number' ? (key >>> (7 * j)) & 127 : key.charCodeAt(j);
        h = fnvStep(h, c);
        signHash = fnvStep(signHash, c);
      }
      this.addFeature(v, h, signHash, weight);
    }
  }
}

/** Adds `weight` to a feature's sum (features kept in first-seen order). */
function addCount(counts: Map<string, number>, feature: string, weight: number): void {
  counts.set(feature, (counts.get(feature) ?? 0) + weight);
}

/** The words of `text` without stop words, in an array that holds strings from the start. */
function keptWords(text: string): string[] {
  const all = words(text);
  const kept = [''];
  kept.length = 0;
  for (let i = 0; i < all.length; i++) {
    const w = all[i]!;
    if (!STOPWORDS.has(w)) kept.push(w);
  }
  return kept;
}

/** The seed of the hash whose lowest bit is a feature's sign. */
const SIGN_SEED = 0x9e3779b1;
const GRAM_PREFIX = fnv1a('c:');
const GRAM_PREFIX_SIGN = fnv1a('c:', SIGN_SEED);

/** The n (<= 4) characters of `text` from `at`, 7 bits each, or -1 when one is not ASCII. */
function packGram(text: string, at: number, n: number): number {
  let key = 0;
  for (let j = 0; j < n; j++) {
    const c = text.charCodeAt(at + j);
    if (c >= 128) return -1;
    key |= c << (7 * j);
  }
  return key;
}
