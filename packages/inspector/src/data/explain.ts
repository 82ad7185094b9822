import {
  type ActivatedSkill,
  effectiveImportance,
  invalidInput,
  MEMORY_TYPES,
  type MemoryType,
  RRF_K,
  assertMemoryType,
  toMillis,
} from '@agentmem/core';
import type { Stores } from '../stores';

export interface ExplainQuery {
  q: string;
  tenant?: string;
  branch?: string;
  /** How many ranked results to show; default 10. */
  k?: number;
  types?: string[];
  /** Files being worked on (skills activate by glob in the contextFor block). */
  files?: string[];
}

export interface ExplainedResult {
  rank: number;
  id: string;
  type: string;
  namespace: string;
  content: string;
  keyword?: { rank: number; score: number; contribution: number };
  dense?: { rank: number; similarity: number; contribution: number };
  /** Fused relevance 0..1 (1: first in every list). */
  relevance: number;
  /** Decayed importance and the multiplier it gives (0.98..1.02: a tie-break). */
  effectiveImportance: number;
  importanceFactor: number;
  rerankScore?: number;
  score: number;
  /** In the memories contextFor would inject (its own k=5, minScore 0.2). */
  inContext: boolean;
}

export interface Explanation {
  query: string;
  scope: { tenant: string; branch: string; namespaces: string[] };
  fusion: { weights: { dense: number; keyword: number }; rrfK: number; mode: 'hybrid' };
  results: ExplainedResult[];
  context: {
    block: string;
    memoryIds: string[];
    skills: { name: string; score: number; activatedBy: ActivatedSkill['activatedBy'] }[];
  };
}

/**
 * recall() exactly as an agent runs it (same store settings, same code path),
 * on a view whose reinforcement write is dropped, with each signal spelled
 * out; and the block contextFor would inject for the same message.
 */
export async function explainRecall(stores: Stores, query: ExplainQuery): Promise<Explanation> {
  const q = query.q?.trim() ?? '';
  if (q === '') throw invalidInput('Type a query to explain recall.');
  const k = query.k ?? 10;
  if (!Number.isInteger(k) || k < 1 || k > 100)
    throw invalidInput(`k must be an integer from 1 to 100, got ${query.k}.`);
  const types: MemoryType[] = query.types?.length ? query.types.map(assertMemoryType) : [...MEMORY_TYPES];
  const memory = await stores.read({ tenant: query.tenant, branch: query.branch });
  const results = await memory.recall(q, { k, types, reinforce: false });
  const context = await memory.contextFor(q, { types, ...(query.files?.length ? { filePath: query.files } : {}) });
  const weights = memory.fusionWeights();
  const inContext = new Set(context.memories.map((r) => r.memory.id));
  const now = stores.now();
  return {
    query: q,
    scope: {
      tenant: memory.tenant,
      branch: memory.branch,
      namespaces: memory.recallNamespaces().filter((n) => types.some((t) => n === t || n.startsWith(`${t}:`))),
    },
    fusion: { weights, rrfK: RRF_K, mode: 'hybrid' },
    results: results.map((r, i) => {
      const eff = effectiveImportance(
        r.memory.importance,
        toMillis(r.memory.lastAccessedAt),
        now,
        stores.halfLifeHours(r.memory.type),
      );
      const { keyword, dense } = r.signals;
      return {
        rank: i + 1,
        id: r.memory.id,
        type: r.memory.type,
        namespace: r.memory.namespace,
        content: r.memory.content,
        ...(keyword
          ? {
              keyword: {
                rank: keyword.rank,
                score: keyword.score,
                contribution: weights.keyword / (RRF_K + keyword.rank),
              },
            }
          : {}),
        ...(dense
          ? { dense: { rank: dense.rank, similarity: dense.score, contribution: weights.dense / (RRF_K + dense.rank) } }
          : {}),
        relevance: r.relevance,
        effectiveImportance: eff,
        importanceFactor: r.relevance > 0 ? r.score / r.relevance : 0,
        ...(r.rerankScore !== undefined ? { rerankScore: r.rerankScore } : {}),
        score: r.score,
        inContext: inContext.has(r.memory.id),
      };
    }),
    context: {
      block: context.block,
      memoryIds: context.memories.map((r) => r.memory.id),
      skills: context.skills.map((s) => ({ name: s.skill.name, score: s.score, activatedBy: s.activatedBy })),
    },
  };
}
