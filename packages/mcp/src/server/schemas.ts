import type { DiffResult, HistoryEntry, Memory, MergeResult, RecallResult } from '@agentmem/core';
import { MEMORY_TYPES, MERGE_STRATEGIES } from '@agentmem/core';
import * as z from 'zod';

// Output schemas are strict JSON Schema (no extra properties) for clients that
// validate, so each has a serializer below that writes exactly its fields.

export const memoryType = z.enum(MEMORY_TYPES as unknown as ['user', 'feedback', 'project', 'reference']);
export const mergeStrategy = z.enum(
  MERGE_STRATEGIES as unknown as ['local_wins', 'remote_wins', 'newer_wins', 'keep_both'],
);
const json = z.record(z.string(), z.unknown());

export const memoryOut = z.object({
  id: z.string(),
  content: z.string(),
  type: memoryType,
  importance: z.number(),
  tags: z.array(z.string()),
  namespace: z.string(),
  tenant: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  occurredAt: z.string().describe('When what it records happened (ISO 8601).'),
  lastAccessedAt: z.string(),
  accessCount: z.number(),
  supersededBy: z.string().optional(),
  prunedAt: z.string().optional(),
  agentId: z.string().optional(),
  branch: z.string().optional(),
  mergedFrom: z.string().optional(),
  mergeId: z.string().optional(),
  metadata: json,
});
export type MemoryOut = z.output<typeof memoryOut>;

export function toMemoryOut(m: Memory): MemoryOut {
  const optional = (['supersededBy', 'prunedAt', 'agentId', 'branch', 'mergedFrom', 'mergeId'] as const).filter(
    (key) => m[key] !== undefined,
  );
  return {
    id: m.id,
    content: m.content,
    type: m.type,
    importance: m.importance,
    tags: m.tags,
    namespace: m.namespace,
    tenant: m.tenant,
    createdAt: m.createdAt,
    updatedAt: m.updatedAt,
    occurredAt: m.occurredAt,
    lastAccessedAt: m.lastAccessedAt,
    accessCount: m.accessCount,
    ...Object.fromEntries(optional.map((key) => [key, m[key]])),
    metadata: m.metadata,
  };
}

const signalMatch = z.object({ rank: z.number(), score: z.number() });

export const recallResultOut = z.object({
  memory: memoryOut,
  score: z.number(),
  relevance: z.number(),
  signals: z.object({ dense: signalMatch.optional(), keyword: signalMatch.optional() }),
  rerankScore: z.number().optional(),
});

export function toRecallResultOut(r: RecallResult): z.output<typeof recallResultOut> {
  return {
    memory: toMemoryOut(r.memory),
    score: r.score,
    relevance: r.relevance,
    signals: {
      ...(r.signals.dense ? { dense: { rank: r.signals.dense.rank, score: r.signals.dense.score } } : {}),
      ...(r.signals.keyword ? { keyword: { rank: r.signals.keyword.rank, score: r.signals.keyword.score } } : {}),
    },
    ...(r.rerankScore !== undefined ? { rerankScore: r.rerankScore } : {}),
  };
}

export const historyEntryOut = z.object({
  id: z.string(),
  action: z.string(),
  at: z.string(),
  agentId: z.string().optional(),
  detail: z.string().optional(),
  memory: memoryOut,
});

export function toHistoryEntryOut(e: HistoryEntry): z.output<typeof historyEntryOut> {
  return {
    id: e.id,
    action: e.action,
    at: e.at,
    ...(e.agentId !== undefined ? { agentId: e.agentId } : {}),
    ...(e.detail !== undefined ? { detail: e.detail } : {}),
    memory: toMemoryOut(e.memory),
  };
}

const cost = z.object({ durationMs: z.number(), embeddingCalls: z.number(), embeddingTokens: z.number().optional() });
const source = z.object({
  label: z.string(),
  kind: z.string(),
  embedder: z.object({ id: z.string(), dimension: z.number() }),
});
const entry = z.object({
  id: z.string(),
  namespace: z.string(),
  kind: z.string(),
  content: z.string().nullable(),
  updatedAt: z.string().nullable(),
  agentId: z.string().nullable(),
});

/** A merge plan (branch or snapshot): what a merge would import, skip and resolve. Nothing written. */
export const diffOut = z.object({
  summary: z.string(),
  source,
  namespaces: z.array(z.string()),
  scanned: z.number(),
  embedderMismatch: z.boolean(),
  counts: z.object({ new: z.number(), newSkills: z.number(), duplicates: z.number(), conflicts: z.number() }),
  imports: z.array(entry.extend({ targetNamespace: z.string(), targetId: z.string() })),
  duplicates: z.array(
    z.object({ remoteId: z.string(), localId: z.string(), namespace: z.string(), reason: z.string() }),
  ),
  conflicts: z.array(
    z.object({ id: z.string(), namespace: z.string(), newer: z.string(), local: entry, remote: entry }),
  ),
  cost,
});

export function toDiffOut(diff: DiffResult): z.output<typeof diffOut> {
  const j = diff.toJSON();
  const describe = (e: (typeof j.imports)[number]) => ({
    id: e.id,
    namespace: e.namespace,
    kind: e.kind,
    content: e.content ?? null,
    updatedAt: e.updatedAt,
    agentId: e.agentId,
  });
  return {
    summary: diff.summary(),
    source: { label: j.source.label, kind: j.source.kind, embedder: { ...j.source.embedder } },
    namespaces: j.namespaces,
    scanned: j.scanned,
    embedderMismatch: j.embedderMismatch,
    counts: j.counts,
    imports: j.imports.map((i) => ({ ...describe(i), targetNamespace: i.targetNamespace, targetId: i.targetId })),
    duplicates: j.duplicates.map((d) => ({
      remoteId: d.remoteId,
      localId: d.localId,
      namespace: d.namespace,
      reason: d.reason,
    })),
    conflicts: j.conflicts.map((c) => ({
      id: c.id,
      namespace: c.namespace,
      newer: c.newer,
      local: describe(c.local as (typeof j.imports)[number]),
      remote: describe(c.remote as (typeof j.imports)[number]),
    })),
    cost: toCost(j.cost),
  };
}

export const mergeOut = z.object({
  summary: z.string(),
  mergeId: z.string(),
  strategy: z.string(),
  source,
  counts: z.object({
    imported: z.number(),
    importedSkills: z.number(),
    duplicates: z.number(),
    conflicts: z.number(),
    overwritten: z.number(),
    keptLocal: z.number(),
    keptBoth: z.number(),
    reembedded: z.number(),
  }),
  cost,
});

export function toMergeOut(result: MergeResult): z.output<typeof mergeOut> {
  const s = result.plan.source;
  const c = result.counts;
  return {
    summary: result.summary(),
    mergeId: result.mergeId,
    strategy: result.strategy,
    source: { label: s.label, kind: s.kind, embedder: { id: s.embedder.id, dimension: s.embedder.dimension } },
    counts: {
      imported: c.imported,
      importedSkills: c.importedSkills,
      duplicates: c.duplicates,
      conflicts: c.conflicts,
      overwritten: c.overwritten,
      keptLocal: c.keptLocal,
      keptBoth: c.keptBoth,
      reembedded: c.reembedded,
    },
    cost: toCost(result.cost),
  };
}

/** Output of the merge tools: the plan on a dry run, the merge otherwise. */
export const mergeToolOut = {
  dryRun: z.boolean(),
  summary: z.string(),
  plan: diffOut.optional(),
  merge: mergeOut.optional(),
};

function toCost(c: { durationMs: number; embeddingCalls: number; embeddingTokens?: number }) {
  return {
    durationMs: c.durationMs,
    embeddingCalls: c.embeddingCalls,
    ...(c.embeddingTokens !== undefined ? { embeddingTokens: c.embeddingTokens } : {}),
  };
}
