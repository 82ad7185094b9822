import type { Embedder, Memory, MemoryInput } from '../contracts';
import { restoreMemory } from '../decay/restore';
import { assertOneOf, invalidInput } from '../errors';
import { assertMemoryType, namespaceFor } from '../scope';
import { KIND, recordToMemory } from '../store/codec';
import type { MemoryStore } from '../store/memory-store';
import { DEFAULT_MAX_CONTENT_LENGTH, validateContent, validateNamespace } from '../store/validate';
import { contentHash } from '../text';

/** What happens to existing memories that a new one contradicts. */
export type ConflictResolution = 'supersede' | 'keep_both' | 'keep_existing';

export const CONFLICT_RESOLUTIONS: readonly ConflictResolution[] = ['supersede', 'keep_both', 'keep_existing'];

/** Cosine similarity at or above which two different memories conflict, unless the embedder declares its own. */
export const DEFAULT_CONFLICT_THRESHOLD = 0.8;

/** Store-wide conflict settings (AgentMemory options). */
export interface ConflictSettings {
  /** Overrides the embedder's `conflictThreshold` (and the 0.8 default). */
  conflictThreshold?: number;
  /** Default `supersede`. */
  conflictResolution?: ConflictResolution;
  /** The store's content limit (default 32,000), checked before the conflict search embeds anything. */
  maxContentLength?: number;
}

export interface ConflictCheckOptions {
  resolution?: ConflictResolution;
  threshold?: number;
}

export interface Conflict {
  /** The existing memory, as it was before this write. */
  memory: Memory;
  /** Cosine similarity to the new content. */
  similarity: number;
}

export interface ConflictCheckResult {
  /** The memory that now holds this content in recall; absent when `keep_existing` refused the write. */
  memory?: Memory;
  /** This call created the memory, or brought an identical superseded/pruned one back. */
  stored: boolean;
  /** The same content (same hash) already existed in this namespace. */
  duplicate: boolean;
  /** Active memories of the same type and namespace, similar but with different content, most similar first. */
  conflicts: Conflict[];
  resolution: ConflictResolution;
  /** Ids that got `supersededBy` the new memory. */
  superseded: string[];
}

export function conflictThreshold(embedder: Embedder, settings: ConflictSettings, options: ConflictCheckOptions = {}) {
  const threshold =
    options.threshold ?? settings.conflictThreshold ?? embedder.conflictThreshold ?? DEFAULT_CONFLICT_THRESHOLD;
  if (typeof threshold !== 'number' || !Number.isFinite(threshold) || threshold <= 0 || threshold > 1) {
    throw invalidInput(
      `The conflict threshold is a cosine similarity above 0 and at most 1, got ${JSON.stringify(threshold)}.`,
    );
  }
  return threshold;
}

/**
 * Active memories in `namespace` of the same type whose cosine similarity to
 * `content` is at least `threshold` and whose content differs. Widens the
 * search until the least similar candidate falls below the threshold, so no
 * conflict is lost to a page size.
 */
export async function findConflicts(
  store: MemoryStore,
  content: string,
  scope: { type: Memory['type']; namespace: string; threshold: number },
): Promise<Conflict[]> {
  const hash = contentHash(content);
  for (let k = 16; ; k *= 4) {
    const hits = await store.findSimilar(content, { namespaces: [scope.namespace], k, minSimilarity: scope.threshold });
    if (hits.length < k) {
      return hits
        .filter((h) => h.memory.type === scope.type && h.memory.contentHash !== hash)
        .map((h) => ({ memory: h.memory, similarity: h.similarity }));
    }
  }
}

/**
 * Writes a memory after checking it against what the store already holds in
 * the same type and namespace (see docs/decay-and-conflicts.md):
 * identical content is a duplicate (nothing new is written; a superseded or
 * pruned copy is brought back), similar content with a different hash is a
 * conflict, resolved by `supersede` (default), `keep_both` or `keep_existing`.
 */
export async function rememberWithConflictCheck(
  store: MemoryStore,
  input: MemoryInput,
  settings: ConflictSettings,
  options: ConflictCheckOptions,
  nowMs: number,
): Promise<ConflictCheckResult> {
  if (input === null || typeof input !== 'object')
    throw invalidInput('rememberWithConflictCheck() takes { content, type }.');
  if (options === null || typeof options !== 'object')
    throw invalidInput('Options must be { resolution?, threshold? }.');
  // The length limit first: an 8 MB text is refused before the conflict search embeds it.
  const content = validateContent(input.content, settings.maxContentLength ?? DEFAULT_MAX_CONTENT_LENGTH);
  const type = assertMemoryType(input.type);
  const resolution = assertOneOf(options.resolution ?? settings.conflictResolution ?? 'supersede', CONFLICT_RESOLUTIONS, 'conflict resolution');
  const threshold = conflictThreshold(store.embedder, settings, options);
  await store.init();
  const namespace =
    input.namespace === undefined ? namespaceFor(type, store.branch) : validateNamespace(input.namespace);

  const [existingRecord] = (
    await store.backend.scan({
      filter: {
        tenant: store.tenant,
        namespaces: [namespace],
        where: { kind: KIND.memory, contentHash: contentHash(content) },
      },
      limit: 1,
    })
  ).records;
  const existing = existingRecord ? recordToMemory(existingRecord) : undefined;
  const active = existing && !existing.prunedAt && !existing.supersededBy;
  if (existing && active)
    return { memory: existing, stored: false, duplicate: true, conflicts: [], resolution, superseded: [] };

  const conflicts = await findConflicts(store, content, { type, namespace, threshold });
  const duplicate = existing !== undefined;
  if (conflicts.length > 0 && resolution === 'keep_existing') {
    return { stored: false, duplicate, conflicts, resolution, superseded: [] };
  }
  // The write and the supersede land together (where the backend has transactions).
  return store.transaction(async () => {
    // Stating an old fact again brings it back rather than keeping a superseded copy out of recall.
    const memory = existing ? await restoreMemory(store, existing.id, nowMs) : await store.remember(input);
    let superseded: string[] = [];
    if (resolution === 'supersede' && conflicts.length > 0) {
      // Read again inside the transaction, so that a change by another writer since the search is not undone.
      const current = await store.backend.get(
        conflicts.map((c) => c.memory.id),
        { tenant: store.tenant, withVectors: false },
      );
      const at = new Date(nowMs).toISOString();
      const stillActive = current.map(recordToMemory).filter((m) => !m.supersededBy && !m.prunedAt);
      await store.patchMemories(
        stillActive.map((m) => ({ ...m, supersededBy: memory.id, updatedAt: at })),
        'supersede',
        `superseded by ${memory.id}`,
      );
      superseded = stillActive.map((m) => m.id);
    }
    return { memory, stored: true, duplicate, conflicts, resolution, superseded };
  });
}
