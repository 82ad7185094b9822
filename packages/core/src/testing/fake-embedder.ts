import type { EmbedOptions, EmbedResult, Embedder } from '../contracts';
import { HashingEmbedder } from '../embedding';

export interface FakeEmbedderOptions {
  id?: string;
  dimension?: number;
  /** Make the n-th call (1-based) throw, to test that failures change nothing. */
  failOnCall?: number;
  /** Reported tokens per text. */
  tokensPerText?: number;
}

/**
 * An embedder for adapter tests: hashing vectors under any id, every call
 * recorded (texts and purpose), optional injected failure.
 */
export class FakeEmbedder implements Embedder {
  readonly specificationVersion = 'v1' as const;
  readonly id: string;
  readonly dimension: number;
  readonly calls: { texts: string[]; purpose: EmbedOptions['purpose'] }[] = [];
  private readonly inner: HashingEmbedder;

  constructor(private readonly options: FakeEmbedderOptions = {}) {
    this.dimension = options.dimension ?? 32;
    this.id = options.id ?? `fake:${this.dimension}`;
    this.inner = new HashingEmbedder({ dimension: this.dimension });
  }

  async embed(texts: readonly string[], options: EmbedOptions): Promise<EmbedResult> {
    this.calls.push({ texts: [...texts], purpose: options.purpose });
    if (this.options.failOnCall === this.calls.length) throw new Error(`FakeEmbedder: injected failure on call ${this.calls.length}`);
    const { embeddings } = await this.inner.embed(texts);
    return { embeddings, usage: { tokens: texts.length * (this.options.tokensPerText ?? 1), calls: 1 } };
  }
}
