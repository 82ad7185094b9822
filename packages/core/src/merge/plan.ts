import { createHash } from 'node:crypto';
import type { BackendRecord, RecordFilter } from '../contracts';
import { invalidInput } from '../errors';
import { HISTORY_NAMESPACE, SKILLS_NAMESPACE, SYSTEM_NAMESPACE_PREFIX } from '../scope';
import { KIND, recordToMemory } from '../store/codec';
import type { MemoryStore } from '../store/memory-store';
import { newId, toMillis } from '../util';
import type { MergeEntry, MergePlan, MergeSource, PlannedConflict, PlanOptions } from './types';

/** Reserved namespace of merge records (what each merge imported and overwrote, for undo). */
export const MERGES_NAMESPACE = '_merges';
export const MERGE_KIND = 'merge';
/** Record kinds a merge carries over; history and merge records stay where they are. */
export const MERGEABLE_KINDS = [KIND.memory, KIND.skill];

const PAGE = 1000;

/**
 * Compares a source with the local store and says what a merge would do:
 * import, skip as duplicate (same id and content, or same content under
 * another id in the target namespace) or conflict (same id, other content).
 * Reads both sides page by page, whatever their size; writes nothing.
 */
export async function planMerge(store: MemoryStore, source: MergeSource, options: PlanOptions = {}): Promise<MergePlan> {
  await store.init();
  const tenant = options.allTenants ? null : store.tenant;
  const map = options.mapNamespace ?? ((ns: string) => ns);
  const namespaces = await sourceNamespaces(source, tenant, options.namespaces);
  const targets = [...new Set(namespaces.map(map))];
  const plan: MergePlan = {
    source: { label: source.label, kind: source.kind, embedder: { ...source.embedder } },
    namespaces,
    imports: [],
    duplicates: [],
    conflicts: [],
    embedderMismatch:
      source.embedder.id !== store.embedder.id || source.embedder.dimension !== store.embedder.dimension,
    scanned: 0,
  };
  if (namespaces.length === 0) return plan;

  // Content index (tenant + namespace + hash -> id) of what is planned and of the local skills
  // (few); local memories are looked up by their indexed content hash, page by page.
  const byContent = new Map<string, string>();
  for await (const record of store.scanRecords({ tenant, namespaces: targets, where: { kind: { in: OTHER_KINDS } } })) {
    const entry = toEntry(record);
    byContent.set(contentKey(entry.tenant, entry.namespace, entry.hash), entry.id);
  }
  const total = await source.backend.count(kindFilter(tenant, namespaces));
  const claimedIds = new Set<string>();
  let cursor: string | undefined;
  do {
    const page = await source.backend.scan({ filter: kindFilter(tenant, namespaces), cursor, limit: PAGE });
    cursor = page.cursor;
    const remotes = page.records.map(toEntry);
    const sameIds = new Map(
      (await store.backend.get(remotes.map((r) => r.id), { tenant: null, withVectors: false })).map((r) => [r.id, r]),
    );
    const unmatched = remotes.filter((r) => r.kind === KIND.memory && sameIds.get(r.id)?.namespace !== map(r.namespace));
    await indexLocalByHash(store, tenant, unmatched.map((r) => ({ namespace: map(r.namespace), hash: r.hash })), byContent);
    for (const remote of remotes) {
      plan.scanned++;
      const targetNamespace = map(remote.namespace);
      const key = contentKey(remote.tenant, targetNamespace, remote.hash);
      const local = sameIds.get(remote.id);
      if (local && local.tenant === remote.tenant && local.namespace === targetNamespace) {
        // The same record on both sides (a snapshot merged back, or a record edited on one side).
        const localEntry = toEntry(local);
        if (localEntry.hash === remote.hash) {
          plan.duplicates.push({ remoteId: remote.id, localId: local.id, namespace: targetNamespace, reason: 'same-id' });
        } else {
          plan.conflicts.push(conflict(localEntry, remote, targetNamespace));
        }
        continue;
      }
      const sameContent = byContent.get(key);
      if (sameContent !== undefined) {
        plan.duplicates.push({ remoteId: remote.id, localId: sameContent, namespace: targetNamespace, reason: 'same-content' });
        continue;
      }
      // Keep the source id when it is free (a later merge then matches by id); otherwise a new one.
      const keepId = targetNamespace === remote.namespace && !local && !claimedIds.has(remote.id);
      const targetId = keepId ? remote.id : derivedId(remote, targetNamespace);
      claimedIds.add(targetId);
      byContent.set(key, targetId);
      plan.imports.push({ remote, targetNamespace, targetId });
    }
    options.onProgress?.({ phase: 'plan', done: plan.scanned, total });
  } while (cursor !== undefined);

  // Derived ids may already exist locally (e.g. a memory since edited); give those a fresh one.
  const derived = plan.imports.filter((i) => i.targetId !== i.remote.id);
  for (let i = 0; i < derived.length; i += PAGE) {
    const batch = derived.slice(i, i + PAGE);
    const taken = new Set(
      (await store.backend.get(batch.map((d) => d.targetId), { tenant: null, withVectors: false })).map((r) => r.id),
    );
    for (const item of batch) if (taken.has(item.targetId)) item.targetId = newId(idPrefix(item.remote.kind));
  }
  return plan;
}

function conflict(local: MergeEntry, remote: MergeEntry, targetNamespace: string): PlannedConflict {
  const newer = remote.updatedAt > local.updatedAt ? 'remote' : remote.updatedAt < local.updatedAt ? 'local' : 'tie';
  return { id: local.id, targetNamespace, local, remote, newer };
}

/** Deterministic, so that merging the same source twice derives the same ids. */
function derivedId(remote: MergeEntry, targetNamespace: string): string {
  const digest = createHash('sha256')
    .update([remote.tenant, targetNamespace, remote.hash].join('\u0000'))
    .digest('hex')
    .slice(0, 26);
  return `${idPrefix(remote.kind)}_${digest}`;
}

export function idPrefix(kind: string): string {
  return kind === KIND.memory ? 'mem' : kind;
}

/** Adds the local memories with these (namespace, hash) pairs to the content index. */
async function indexLocalByHash(
  store: MemoryStore,
  tenant: string | null,
  wanted: readonly { namespace: string; hash: string }[],
  byContent: Map<string, string>,
): Promise<void> {
  if (wanted.length === 0) return;
  const filter: RecordFilter = {
    tenant,
    namespaces: [...new Set(wanted.map((w) => w.namespace))],
    where: { kind: KIND.memory, contentHash: { in: [...new Set(wanted.map((w) => w.hash))] } },
  };
  for await (const record of store.scanRecords(filter)) {
    const key = contentKey(record.tenant, record.namespace, String(record.attributes.contentHash));
    if (!byContent.has(key)) byContent.set(key, record.id);
  }
}

function kindFilter(tenant: string | null, namespaces: readonly string[]): RecordFilter {
  return { tenant, namespaces, where: { kind: { in: MEMORY_AND_SKILL } } };
}
const MEMORY_AND_SKILL = [...MERGEABLE_KINDS];
const OTHER_KINDS = MERGEABLE_KINDS.filter((k) => k !== KIND.memory);

function contentKey(tenant: string, namespace: string, hash: string): string {
  return `${tenant}\u0000${namespace}\u0000${hash}`;
}

/** A record as the plan compares it. */
export function toEntry(record: BackendRecord): MergeEntry {
  const kind = String(record.attributes.kind);
  if (kind === KIND.memory) {
    const memory = recordToMemory(record);
    return {
      id: record.id,
      kind,
      namespace: record.namespace,
      tenant: record.tenant,
      hash: memory.contentHash,
      updatedAt: toMillis(memory.updatedAt) || 0,
      record,
      memory,
    };
  }
  const updated = (record.payload as { updatedAt?: unknown }).updatedAt ?? record.attributes.updatedAt;
  return {
    id: record.id,
    kind,
    namespace: record.namespace,
    tenant: record.tenant,
    hash: createHash('sha256').update(record.text).update('\u0000').update(stableJson(record.payload)).digest('hex'),
    updatedAt: typeof updated === 'string' || typeof updated === 'number' ? toMillis(updated) || 0 : 0,
    record,
  };
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${stableJson((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Source namespaces to compare: the given ones (with `prefix*` patterns) or all memory namespaces + skills. */
async function sourceNamespaces(
  source: MergeSource,
  tenant: string | null,
  wanted: readonly string[] | undefined,
): Promise<string[]> {
  if (wanted !== undefined && (!Array.isArray(wanted) || wanted.some((n) => typeof n !== 'string' || n === ''))) {
    throw invalidInput('namespaces must be an array of namespace names, e.g. ["user", "project:main", "reference:*"].');
  }
  const blocked = new Set([HISTORY_NAMESPACE, MERGES_NAMESPACE]);
  const existing = [...new Set((await source.backend.namespaces({ tenant })).map((n) => n.namespace))].filter(
    (n) => !blocked.has(n) && (!n.startsWith(SYSTEM_NAMESPACE_PREFIX) || n === SKILLS_NAMESPACE),
  );
  if (wanted === undefined) return existing.sort();
  for (const n of wanted) {
    if (blocked.has(n)) throw invalidInput(`Namespace ${n} is agentmem's own bookkeeping and is never merged.`);
  }
  return existing
    .filter((n) => wanted.some((w) => (w.endsWith('*') ? n.startsWith(w.slice(0, -1)) : n === w)))
    .sort();
}
