import { type AgentMemory, KIND, type Memory, newId, toStoredMemory, validateTenant } from '@agentmem/core';
import type { MemoryLine } from './parse-lines';

export interface ImportMemoriesOptions {
  /** Tenant for every line (`--tenant`); otherwise each line's own, else the default tenant. */
  tenant?: string;
  /** Written into each memory's history entry ("imported from …"). */
  source: string;
  /** Plan only: count what would be imported, write nothing. */
  dryRun?: boolean;
  /** Called as each phase moves on: lines checked against the store, memories embedded, memories written. */
  progress?: (phase: ImportPhase, done: number, total: number) => void;
}

export type ImportPhase = 'checked' | 'embedded' | 'written';

export interface ImportMemoriesResult {
  /** Lines read. */
  total: number;
  /** New memories written (or that would be, with dryRun). */
  imported: number;
  /** Already in the store (same id, or same content in the same scope) or repeated in the file. */
  skipped: number;
  dryRun: boolean;
}

const EMBED_BATCH = 256;
const ID_BATCH = 500;

/**
 * Writes validated lines into the store, keeping ids, timestamps, status and
 * provenance. Idempotent: what is already there (by id or by content in the
 * same tenant and namespace) is skipped. All or nothing: everything is embedded
 * first, then written in one transaction.
 */
export async function importMemories(
  memory: AgentMemory,
  lines: readonly MemoryLine[],
  options: ImportMemoriesOptions,
): Promise<ImportMemoriesResult> {
  const candidates = lines.map((line) => ({
    memory: toMemory(memory, line, options.tenant),
    ownId: line.id !== undefined,
  }));
  const existingIds = new Set<string>();
  for (let i = 0; i < candidates.length; i += ID_BATCH) {
    const ids = candidates.slice(i, i + ID_BATCH).map((c) => c.memory.id);
    for (const record of await memory.backend.get(ids, { tenant: null, withVectors: false }))
      existingIds.add(record.id);
  }
  const seen = new Set<string>();
  const fresh: Memory[] = [];
  let checked = 0;
  for (const { memory: candidate, ownId } of candidates) {
    options.progress?.('checked', ++checked, candidates.length);
    const key = `${candidate.tenant}\u0000${candidate.namespace}\u0000${candidate.contentHash}`;
    if ((ownId && existingIds.has(candidate.id)) || seen.has(key) || (await hasContent(memory, candidate))) continue;
    // A derived id can be taken by a memory whose content has changed since (as in MemoryStore.remember).
    if (!ownId && existingIds.has(candidate.id)) candidate.id = newId('mem');
    seen.add(key);
    fresh.push(candidate);
  }
  const result = {
    total: lines.length,
    imported: fresh.length,
    skipped: lines.length - fresh.length,
    dryRun: !!options.dryRun,
  };
  if (options.dryRun || fresh.length === 0) return result;
  const vectors: Float32Array[] = [];
  for (let i = 0; i < fresh.length; i += EMBED_BATCH) {
    vectors.push(...(await memory.embedDocuments(fresh.slice(i, i + EMBED_BATCH).map((m) => m.content))));
    options.progress?.('embedded', vectors.length, fresh.length);
  }
  await memory.writeMemories(
    fresh.map((m, i) => ({ memory: m, vector: vectors[i]! })),
    'create',
    `imported from ${options.source}`,
    options.progress && ((done, total) => options.progress?.('written', done, total)),
  );
  return result;
}

/** The line as a whole memory: core's completion of stored fields (the same as a merge's). */
function toMemory(memory: AgentMemory, line: MemoryLine, tenantOverride: string | undefined): Memory {
  // --tenant wins over the line's own tenant.
  const tenant = validateTenant(tenantOverride ?? line.tenant ?? memory.tenant);
  return toStoredMemory(
    { ...line, tenant },
    { now: new Date().toISOString(), tenant, branch: memory.branch, agentId: memory.agentId },
  );
}

async function hasContent(memory: AgentMemory, m: Memory): Promise<boolean> {
  const page = await memory.backend.scan({
    filter: { tenant: m.tenant, namespaces: [m.namespace], where: { kind: KIND.memory, contentHash: m.contentHash } },
    limit: 1,
  });
  return page.records.length > 0;
}
