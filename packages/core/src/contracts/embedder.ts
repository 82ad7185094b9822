import type { EmbedOptions } from './embed-options';
import type { EmbedResult } from './embed-result';

/** Turns text into vectors (v1). */
export interface Embedder {
  readonly specificationVersion: 'v1';
  /** Stable provider + model id (+ settings that change vectors); a store refuses another. */
  readonly id: string;
  readonly dimension: number;
  /**
   * True when similarity is lexical overlap rather than meaning (feature
   * hashing). Recall then trusts keyword relevance more than the dense signal.
   */
  readonly lexical?: boolean;
  /**
   * The weights recall fuses this embedder's dense list with keyword relevance by, when the store's
   * options name none. Default: equal for a semantic embedder (an embedding model's).
   */
  readonly fusionWeights?: { readonly dense: number; readonly keyword: number };
  /** Cosine similarity at or above which two different memories conflict; default 0.8. */
  readonly conflictThreshold?: number;
  embed(texts: readonly string[], options: EmbedOptions): Promise<EmbedResult>;
}
