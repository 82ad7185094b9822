import { createHash } from 'node:crypto';
import type { BackendRecord, MemoryBackend } from '../contracts';
import { AgentMemoryError, invalidInput } from '../errors';
import { HISTORY_NAMESPACE, SKILLS_NAMESPACE, SYSTEM_NAMESPACE_PREFIX } from '../scope';
import { KIND, recordToMemory } from '../store/codec';
import type { MemoryStore } from '../store/memory-store';
import { newId, toMillis } from '../util';
import { type MemoryAdmission, memoryAdmission, type RecordAdmission, recordAdmission } from './admit';
import type {
  MemoryKeyReader,
  MergeEntry,
  MergePlan,
  MergeSource,
  PlannedConflict,
  PlanOptions,
  RecordKey,
  SourceRecordReader,
} from './types';

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
 * Compares record keys (id, namespace, content hash, updatedAt) of both
 * sides, read page by page whatever their size, then loads the full records
 * of what is imported or in conflict. Writes nothing.
 */
export async function planMerge(
  store: MemoryStore,
  source: MergeSource,
  options: PlanOptions = {},
): Promise<MergePlan> {
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

  const locals = await readKeys(store.backend, { tenant, namespaces: targets }, options.keyReader);
  const byId = new Map(locals.map((k) => [k.id, k]));
  const byContent = new Map<string, string>();
  for (const k of locals) {
    const key = contentKey(k.tenant, k.namespace, k.hash);
    if (!byContent.has(key)) byContent.set(key, k.id);
  }
  // Every source record passes the write policy here, so diff and merge refuse a bad one alike.
  const admit = recordAdmission(source, store.writeLimits);
  const remotes = await sourceKeys(
    source.backend,
    { tenant, namespaces },
    options.sourceReader,
    admittedKey(admit, memoryAdmission(source, store.writeLimits)),
  );
  remotes.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)); // deterministic: the first of equal contents wins

  const imports: { remote: RecordKey; targetNamespace: string; targetId: string }[] = [];
  const conflicts: { local: RecordKey; remote: RecordKey; targetNamespace: string }[] = [];
  const claimedIds = new Set<string>();
  for (const remote of remotes) {
    const targetNamespace = map(remote.namespace);
    // Across namespaces (branch merges) a record lands under a derived id, where a later merge finds it again.
    const mappedId = targetNamespace === remote.namespace ? remote.id : derivedId(remote, targetNamespace);
    const local = byId.get(mappedId);
    const key = contentKey(remote.tenant, targetNamespace, remote.hash);
    const sameContent = byContent.get(key);
    if (local && local.tenant === remote.tenant && local.namespace === targetNamespace) {
      // The same record on both sides (a snapshot merged back, or a record edited on one side).
      if (local.hash === remote.hash) {
        plan.duplicates.push({ remoteId: remote.id, localId: local.id, namespace: targetNamespace, reason: 'same-id' });
      } else if (sameContent !== undefined) {
        // The remote version is already here under another id (e.g. the copy an earlier keep_both merge made).
        plan.duplicates.push({
          remoteId: remote.id,
          localId: sameContent,
          namespace: targetNamespace,
          reason: 'same-content',
        });
      } else {
        conflicts.push({ local, remote, targetNamespace });
      }
      continue;
    }
    if (sameContent !== undefined) {
      plan.duplicates.push({
        remoteId: remote.id,
        localId: sameContent,
        namespace: targetNamespace,
        reason: 'same-content',
      });
      continue;
    }
    // Keep the source id when it is free (a later merge then matches by id); otherwise a derived one.
    const keepId = targetNamespace === remote.namespace && !claimedIds.has(remote.id);
    const targetId = keepId ? remote.id : derivedId(remote, targetNamespace);
    claimedIds.add(targetId);
    byContent.set(key, targetId);
    imports.push({ remote, targetNamespace, targetId });
  }
  plan.scanned = remotes.length;

  // Full records of what moves (and of both sides of each conflict).
  const remoteEntries = await entries(
    source.backend,
    [...imports.map((i) => i.remote.id), ...conflicts.map((c) => c.remote.id)],
    source.label,
    // What will be written is read with its vector (when vectors are copied), so that a bad one refuses the diff too.
    plan.embedderMismatch ? admit : recordAdmission(source, store.writeLimits, store.embedder.dimension),
    !plan.embedderMismatch,
  );
  const localEntries = await entries(
    store.backend,
    conflicts.map((c) => c.local.id),
    'this store',
  );
  for (const c of conflicts) {
    plan.conflicts.push(conflict(localEntries.get(c.local.id)!, remoteEntries.get(c.remote.id)!, c.targetNamespace));
  }
  // An id may be taken locally outside the compared namespaces (or by an edited memory): use a fresh one.
  for (let i = 0; i < imports.length; i += PAGE) {
    const batch = imports.slice(i, i + PAGE);
    const taken = new Set(
      (
        await store.backend.get(
          batch.map((d) => d.targetId),
          { tenant: null, withVectors: false },
        )
      ).map((r) => r.id),
    );
    for (const item of batch) {
      plan.imports.push({
        remote: remoteEntries.get(item.remote.id)!,
        targetNamespace: item.targetNamespace,
        targetId: taken.has(item.targetId) ? newId(idPrefix(item.remote.kind)) : item.targetId,
      });
    }
  }
  source.assertUnchanged?.(); // every read of the source is done
  options.onProgress?.({ phase: 'plan', done: plan.scanned, total: plan.scanned });
  return plan;
}

/**
 * Keys of the memories and skills under a filter: the fast reader where it
 * applies, else from full records, each turned into a key by `key` (the
 * source's: through the write policy).
 */
async function readKeys(
  backend: MemoryBackend,
  filter: { tenant: string | null; namespaces: readonly string[] },
  reader: MemoryKeyReader | undefined,
  key: (record: BackendRecord) => RecordKey = (record) => toKey(toEntry(record)),
): Promise<RecordKey[]> {
  const fast = reader ? await reader(backend, filter) : undefined;
  const kinds = fast ? OTHER_KINDS : MERGEABLE_KINDS;
  const keys: RecordKey[] = fast ? [...fast] : [];
  let cursor: string | undefined;
  do {
    const page = await backend.scan({
      filter: { tenant: filter.tenant, namespaces: filter.namespaces, where: { kind: { in: kinds } } },
      cursor,
      limit: PAGE,
    });
    for (const record of page.records) keys.push(key(record));
    cursor = page.cursor;
  } while (cursor !== undefined);
  return keys;
}

/**
 * The source's keys, every record through the write policy (`key`): read by
 * the format's reader where it applies (one pass over the file, only the
 * columns the policy reads), else by the contract's scan.
 */
async function sourceKeys(
  backend: MemoryBackend,
  filter: { tenant: string | null; namespaces: readonly string[] },
  reader: SourceRecordReader | undefined,
  key: (record: BackendRecord) => RecordKey,
): Promise<RecordKey[]> {
  const pages = reader?.(backend, { ...filter, kinds: MERGEABLE_KINDS });
  if (pages === undefined) return readKeys(backend, filter, undefined, key);
  const keys: RecordKey[] = [];
  for await (const page of pages) for (const record of page) keys.push(key(record));
  return keys;
}

/**
 * A source record's key after the write policy (the hash is the cleaned
 * content's), so no fast key reader: the payload is what is checked.
 */
function admittedKey(admit: RecordAdmission, admitMemory: MemoryAdmission): (record: BackendRecord) => RecordKey {
  return (record) => {
    if (record.attributes?.kind !== KIND.memory) return toKey(toEntry(admit(record)));
    // A memory's key straight from the checked memory: what its record's attributes would say, without building them.
    const memory = admitMemory(record);
    return {
      id: memory.id,
      kind: KIND.memory,
      namespace: memory.namespace,
      tenant: memory.tenant,
      hash: memory.contentHash,
      updatedAt: toMillis(memory.updatedAt),
    };
  };
}

/** Full records by id, as plan entries (through `admit` for the source's). */
async function entries(
  backend: MemoryBackend,
  ids: readonly string[],
  label: string,
  admit: RecordAdmission = (r) => r,
  withVectors = false,
): Promise<Map<string, MergeEntry>> {
  const out = new Map<string, MergeEntry>();
  for (let i = 0; i < ids.length; i += PAGE) {
    for (const r of await backend.get(ids.slice(i, i + PAGE), { tenant: null, withVectors })) {
      const record = admit(r);
      delete record.vector; // checked; the apply reads it again, the plan does not hold 100k of them
      out.set(r.id, toEntry(record));
    }
  }
  const missing = ids.find((id) => !out.has(id));
  if (missing !== undefined) {
    throw new AgentMemoryError(
      'CONFLICT',
      `Record ${missing} of ${label} changed while the merge was planned; nothing was written. Try again.`,
    );
  }
  return out;
}

function toKey(e: MergeEntry): RecordKey {
  return { id: e.id, kind: e.kind, namespace: e.namespace, tenant: e.tenant, hash: e.hash, updatedAt: e.updatedAt };
}

function conflict(local: MergeEntry, remote: MergeEntry, targetNamespace: string): PlannedConflict {
  const newer = remote.updatedAt > local.updatedAt ? 'remote' : remote.updatedAt < local.updatedAt ? 'local' : 'tie';
  return { id: local.id, targetNamespace, local, remote, newer };
}

/** Deterministic, so that merging the same source twice derives the same ids. */
function derivedId(remote: RecordKey, targetNamespace: string): string {
  const digest = createHash('sha256')
    .update([remote.tenant, targetNamespace, remote.hash].join('\u0000'))
    .digest('hex')
    .slice(0, 26);
  return `${idPrefix(remote.kind)}_${digest}`;
}

export function idPrefix(kind: string): string {
  return kind === KIND.memory ? 'mem' : kind;
}

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
  return existing.filter((n) => wanted.some((w) => (w.endsWith('*') ? n.startsWith(w.slice(0, -1)) : n === w))).sort();
}
