import { AgentMemoryError, type EmbedOptions, type EmbedResult, type Embedder, invalidInput } from '@agentmem/core';
import type { EmbeddingsInterface } from '@langchain/core/embeddings';

export interface LangChainEmbedderOptions {
  /** Stable id of provider + model; default derived from the class and its `model`/`modelName`. */
  id?: string;
  /** Vector size; `langchainEmbedder()` probes it when omitted. */
  dimension?: number;
}

/** Any LangChain `Embeddings` as an agentmem Embedder (documents vs queries kept apart). */
export class LangChainEmbedder implements Embedder {
  readonly specificationVersion = 'v1' as const;
  readonly id: string;
  readonly dimension: number;

  constructor(
    private readonly embeddings: EmbeddingsInterface,
    options: LangChainEmbedderOptions & { dimension: number },
  ) {
    if (!Number.isInteger(options.dimension) || options.dimension < 1) {
      throw invalidInput(
        'LangChainEmbedder needs the vector dimension ({ dimension }), or use langchainEmbedder() to probe it.',
      );
    }
    this.dimension = options.dimension;
    this.id = options.id ?? defaultId(embeddings, options.dimension);
  }

  async embed(texts: readonly string[], options: EmbedOptions): Promise<EmbedResult> {
    const vectors =
      options.purpose === 'query'
        ? await Promise.all(texts.map((t) => this.embeddings.embedQuery(t)))
        : await this.embeddings.embedDocuments([...texts]);
    if (vectors.length !== texts.length) {
      throw new AgentMemoryError(
        'BACKEND_ERROR',
        `The LangChain embeddings returned ${vectors.length} vectors for ${texts.length} texts.`,
      );
    }
    return {
      embeddings: vectors.map((v) => Float32Array.from(v)),
      usage: { calls: options.purpose === 'query' ? texts.length : 1 },
    };
  }
}

function defaultId(embeddings: EmbeddingsInterface, dimension: number): string {
  const e = embeddings as unknown as { model?: unknown; modelName?: unknown };
  const model = typeof e.model === 'string' ? e.model : typeof e.modelName === 'string' ? e.modelName : undefined;
  return `langchain:${embeddings.constructor.name}${model ? `:${model}` : ''}:${dimension}`;
}

/**
 * Wraps LangChain embeddings, probing the dimension with one query when it is
 * not given. Works with any provider package, e.g. `HuggingFaceTransformersEmbeddings`
 * from `@langchain/community` for local semantic embeddings.
 */
export async function langchainEmbedder(
  embeddings: EmbeddingsInterface,
  options: LangChainEmbedderOptions = {},
): Promise<LangChainEmbedder> {
  const dimension = options.dimension ?? (await embeddings.embedQuery('dimension probe')).length;
  return new LangChainEmbedder(embeddings, { ...options, dimension });
}
