import type { Usage } from './usage';

export interface EmbedResult {
  /** One per input text, in order; each of length `dimension`. */
  embeddings: Float32Array[];
  usage?: Usage;
}
