import type { AgentMemory, MemoryType, RecallOptions } from '@agentmem/core';
import type { CallbackManagerForRetrieverRun } from '@langchain/core/callbacks/manager';
import { Document } from '@langchain/core/documents';
import { BaseRetriever, type BaseRetrieverInput } from '@langchain/core/retrievers';

export interface AgentMemoryRetrieverInput extends BaseRetrieverInput {
  memory: AgentMemory;
  /** Documents per query; default 5. */
  k?: number;
  types?: MemoryType[];
  minScore?: number;
  /** Another tenant or branch than the memory's own. */
  tenant?: string;
  branch?: string;
  /** Extra recall options (includeSuperseded, mode, ...). */
  recall?: Omit<RecallOptions, 'k' | 'types' | 'minScore'>;
}

/** agentmem's hybrid recall as a LangChain retriever (usable in LCEL: `retriever.pipe(...)`). */
export class AgentMemoryRetriever extends BaseRetriever {
  static override lc_name() {
    return 'AgentMemoryRetriever';
  }
  override lc_namespace = ['agentmem', 'retrievers'];
  private readonly memory: AgentMemory;
  private readonly options: AgentMemoryRetrieverInput;

  constructor(fields: AgentMemoryRetrieverInput) {
    super(fields);
    this.options = fields;
    this.memory =
      fields.tenant !== undefined || fields.branch !== undefined
        ? fields.memory.withScope({ tenant: fields.tenant, branch: fields.branch })
        : fields.memory;
  }

  override async _getRelevantDocuments(
    query: string,
    _runManager?: CallbackManagerForRetrieverRun,
  ): Promise<Document[]> {
    const results = await this.memory.recall(query, {
      ...this.options.recall,
      k: this.options.k ?? 5,
      ...(this.options.types ? { types: this.options.types } : {}),
      ...(this.options.minScore !== undefined ? { minScore: this.options.minScore } : {}),
    });
    return results.map(
      (r) =>
        new Document({
          id: r.memory.id,
          pageContent: r.memory.content,
          metadata: {
            id: r.memory.id,
            type: r.memory.type,
            importance: r.memory.importance,
            score: r.score,
            relevance: r.relevance,
            ...(r.rerankScore !== undefined ? { rerankScore: r.rerankScore } : {}),
            branch: r.memory.branch ?? null,
            namespace: r.memory.namespace,
            tags: r.memory.tags,
            createdAt: r.memory.createdAt,
            signals: Object.keys(r.signals),
          },
        }),
    );
  }
}
