import type { MemoryBackend } from '../contracts';
import { AgentMemoryError, invalidInput } from '../errors';
import { HISTORY_NAMESPACE, SKILLS_NAMESPACE } from '../scope';
import { HISTORY_PENDING, historyToRecord, impliedCreate, isHistoryPending, KIND } from '../store/codec';
import { META_EMBEDDER_DIMENSION, META_EMBEDDER_ID, type MemoryStore } from '../store/memory-store';
import { MERGE_KIND } from './plan';
import { plural } from './results';
import {
  SNAPSHOT_FORMAT_NAME,
  SNAPSHOT_FORMAT_VERSION,
  SNAPSHOT_MANIFEST_KEY,
  type SnapshotFormat,
  type SnapshotManifest,
} from './snapshot-format';
import type { MergeProgress } from './types';

const PAGE = 1000;

export interface SnapshotOptions {
  /** Replace an existing file at the path. Default false. */
  overwrite?: boolean;
  /** Copy record by record through the MemoryBackend contract even when the format has a native fast path. */
  viaContract?: boolean;
  onProgress?: (progress: MergeProgress) => void;
}

export interface SnapshotResult {
  path: string;
  manifest: SnapshotManifest;
  durationMs: number;
  summary(): string;
}

/**
 * Copies the whole store (every tenant: memories, skills, history, merge
 * records, with vectors) into a new snapshot file, page by page through the
 * MemoryBackend contract, so any backend can be snapshotted. The copy runs in
 * one transaction where the backend supports it; the file appears complete or
 * not at all.
 */
export async function createSnapshot(
  store: MemoryStore,
  path: string,
  format: SnapshotFormat | undefined,
  options: SnapshotOptions = {},
): Promise<SnapshotResult> {
  await store.init();
  const fmt = requireFormat(format);
  if (typeof path !== 'string' || path.trim() === '') throw invalidInput('snapshot() needs a file path.');
  const started = performance.now();
  const source = store.backend;
  const dimension = store.embedder.dimension;
  const counts: SnapshotManifest['counts'] = { total: 0, memories: 0, skills: 0, history: 0, merges: 0 };
  const fast = options.viaContract
    ? undefined
    : await fmt.copyOf?.(source, path, { dimension, overwrite: options.overwrite });
  const writer = fast ?? (await fmt.create(path, { dimension, overwrite: options.overwrite }));
  try {
    await writer.backend.init({ dimension });
    if (fast) {
      options.onProgress?.({ phase: 'snapshot', done: 1, total: 1 });
      await writeImpliedCreates(writer.backend);
      Object.assign(counts, await countKinds(writer.backend));
    } else {
      await copyRecords(source, writer.backend, counts, options);
      const written = await writeImpliedCreates(writer.backend);
      counts.total += written;
      counts.history += written;
    }
    const manifest: SnapshotManifest = {
      format: SNAPSHOT_FORMAT_NAME,
      formatVersion: SNAPSHOT_FORMAT_VERSION,
      embedder: { id: store.embedder.id, dimension },
      createdAt: new Date().toISOString(),
      ...(store.agentId ? { sourceAgentId: store.agentId } : {}),
      sourceBackend: source.provider,
      counts,
    };
    // The embedder meta makes the file open as an ordinary store with the same embedder.
    await writer.backend.setMeta(META_EMBEDDER_ID, store.embedder.id);
    await writer.backend.setMeta(META_EMBEDDER_DIMENSION, String(dimension));
    await writer.backend.setMeta(SNAPSHOT_MANIFEST_KEY, JSON.stringify(manifest));
    await writer.commit();
    const durationMs = performance.now() - started;
    return {
      path,
      manifest,
      durationMs,
      summary: () =>
        `Snapshot ${path}: ${plural(counts.memories, 'memory', 'memories')}, ${plural(counts.skills, 'skill', 'skills')}, ${plural(counts.history, 'history entry', 'history entries')} (${Math.round(durationMs)} ms)`,
    };
  } catch (error) {
    await writer.abort().catch(() => {});
    throw error;
  }
}

/** Copies every record page by page, in one read transaction where the backend has them. */
async function copyRecords(
  source: MemoryBackend,
  target: MemoryBackend,
  counts: SnapshotManifest['counts'],
  options: SnapshotOptions,
): Promise<void> {
  const copy = async () => {
    const total = await source.count({ tenant: null });
    let cursor: string | undefined;
    do {
      const page = await source.scan({ filter: { tenant: null }, cursor, limit: PAGE, withVectors: true });
      cursor = page.cursor;
      if (page.records.length > 0) await target.upsert(page.records);
      for (const r of page.records) {
        counts.total++;
        const kind = r.attributes.kind;
        if (kind === KIND.memory) counts.memories++;
        else if (kind === KIND.skill) counts.skills++;
        else if (kind === KIND.history) counts.history++;
        else if (kind === MERGE_KIND) counts.merges++;
      }
      options.onProgress?.({ phase: 'snapshot', done: counts.total, total });
    } while (cursor !== undefined);
  };
  // A transaction gives a consistent read where the backend isolates it (SQLite).
  if (source.capabilities.transactions && source.transaction) await source.transaction(copy);
  else await copy();
}

/**
 * Writes the `create` entries the copied memory records imply (memories `rememberMany` created and
 * nothing changed since) as history rows, and drops their marker: a snapshot holds its history as
 * rows, as it did before entries could be implied, so every reader of the file finds them. Returns
 * how many it wrote.
 */
async function writeImpliedCreates(backend: MemoryBackend): Promise<number> {
  const filter = { tenant: null, where: { kind: KIND.memory, [HISTORY_PENDING]: true } };
  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const page = backend.scanAttributes
      ? await backend.scanAttributes({ filter, cursor, limit: 10 * PAGE, attributes: [] })
      : await backend.scan({ filter, cursor, limit: PAGE });
    for (const r of page.records) ids.push(r.id);
    cursor = page.cursor;
  } while (cursor !== undefined);
  let written = 0;
  for (let i = 0; i < ids.length; i += PAGE) {
    const marked = (await backend.get(ids.slice(i, i + PAGE), { tenant: null, withVectors: false })).filter(
      isHistoryPending,
    );
    if (marked.length === 0) continue;
    await backend.upsert(marked.map((r) => historyToRecord(impliedCreate(r), r.tenant)));
    await backend.patch(marked.map((r) => ({ id: r.id, attributes: { [HISTORY_PENDING]: false } })));
    written += marked.length;
  }
  return written;
}

async function countKinds(backend: MemoryBackend): Promise<SnapshotManifest['counts']> {
  const kind = (k: string) => backend.count({ tenant: null, where: { kind: k } });
  return {
    total: await backend.count({ tenant: null }),
    memories: await kind(KIND.memory),
    skills: await kind(KIND.skill),
    history: await kind(KIND.history),
    merges: await kind(MERGE_KIND),
  };
}

export interface OpenedSnapshot {
  backend: MemoryBackend;
  manifest: SnapshotManifest;
  /** True when an agent worked in the file after it was written (more history than at snapshot time). */
  modified: boolean;
}

/**
 * Opens a snapshot file and checks it: the manifest must be there and of a
 * format version this code reads; record counts must match the manifest
 * (unless an agent worked in the file since, which history shows).
 */
export async function openSnapshot(path: string, format: SnapshotFormat | undefined): Promise<OpenedSnapshot> {
  const fmt = requireFormat(format);
  if (typeof path !== 'string' || path.trim() === '') throw invalidInput('Give the path of a snapshot file.');
  const backend = await fmt.open(path);
  try {
    const raw = await backend.getMeta(SNAPSHOT_MANIFEST_KEY);
    if (raw === undefined) throw corrupt(path, 'it has no snapshot manifest (it is not an agentmem snapshot)');
    const manifest = parseManifest(path, raw);
    await backend.init({ dimension: manifest.embedder.dimension });
    // History entries: rows, and the create entries of memories written into the file since (by
    // rememberMany, implied by their records; a snapshot itself holds none).
    const history =
      (await backend.count({
        tenant: null,
        namespaces: [HISTORY_NAMESPACE],
        where: { kind: KIND.history },
      })) + (await backend.count({ tenant: null, where: { kind: KIND.memory, [HISTORY_PENDING]: true } }));
    const modified = history > manifest.counts.history;
    if (history < manifest.counts.history) {
      throw corrupt(path, `it holds ${history} history entries, its manifest says ${manifest.counts.history}`);
    }
    if (!modified) {
      const memories = await backend.count({ tenant: null, where: { kind: KIND.memory } });
      const skills = await backend.count({ tenant: null, namespaces: [SKILLS_NAMESPACE], where: { kind: KIND.skill } });
      const total = await backend.count({ tenant: null });
      if (
        memories !== manifest.counts.memories ||
        skills !== manifest.counts.skills ||
        total !== manifest.counts.total
      ) {
        throw corrupt(
          path,
          `it holds ${memories} memories, ${skills} skills and ${total} records; its manifest says ${manifest.counts.memories}, ${manifest.counts.skills} and ${manifest.counts.total}`,
        );
      }
    }
    return { backend, manifest, modified };
  } catch (error) {
    await backend.close().catch(() => {});
    throw error;
  }
}

function parseManifest(path: string, raw: string): SnapshotManifest {
  let m: SnapshotManifest;
  try {
    m = JSON.parse(raw) as SnapshotManifest;
  } catch {
    throw corrupt(path, 'its manifest is not valid JSON');
  }
  if (m?.format !== SNAPSHOT_FORMAT_NAME || typeof m.formatVersion !== 'number') {
    throw corrupt(path, 'its manifest does not describe an agentmem snapshot');
  }
  if (m.formatVersion > SNAPSHOT_FORMAT_VERSION) {
    throw new AgentMemoryError(
      'UNSUPPORTED_FORMAT',
      `${path} is snapshot format version ${m.formatVersion}; this agentmem reads up to version ${SNAPSHOT_FORMAT_VERSION}. Upgrade @agentmem/core and @agentmem/sqlite to read it.`,
      { details: { path, formatVersion: m.formatVersion, supported: SNAPSHOT_FORMAT_VERSION } },
    );
  }
  const c = m.counts;
  if (
    typeof m.embedder?.id !== 'string' ||
    !Number.isInteger(m.embedder.dimension) ||
    !c ||
    ![c.total, c.memories, c.skills, c.history].every((n) => Number.isInteger(n) && n >= 0)
  ) {
    throw corrupt(path, 'its manifest lacks the embedder or the record counts');
  }
  return m;
}

function corrupt(path: string, why: string): AgentMemoryError {
  return new AgentMemoryError(
    'CORRUPT_SNAPSHOT',
    `${path} is not a usable agentmem snapshot: ${why}. Nothing was changed; ask for a new snapshot (agentmem snapshot PATH).`,
    { details: { path } },
  );
}

function requireFormat(format: SnapshotFormat | undefined): SnapshotFormat {
  if (!format) {
    throw new AgentMemoryError(
      'CAPABILITY_MISSING',
      'No snapshot format configured. Pass one, e.g. createAgentMemory({ ..., snapshotFormat: sqliteSnapshotFormat }) ' +
        "with `import { sqliteSnapshotFormat } from '@agentmem/sqlite'` (createSqliteMemory does this for you).",
    );
  }
  return format;
}
