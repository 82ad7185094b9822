import {
  AgentMemoryError,
  assertMemoryType,
  effectiveImportance,
  type HistoryEntry,
  invalidInput,
  KIND,
  type Memory,
  type RecordFilter,
  pruneInstant,
  recordToMemory,
  statusOf,
  toMillis,
} from '@agentmem/core';
import type { Stores } from '../stores';

export interface MemoryQuery {
  /** A tenant, or '*' (default) for every tenant. */
  tenant?: string;
  branch?: string;
  namespace?: string;
  type?: string;
  /** active | superseded | pruned | all (default all). */
  status?: string;
  tag?: string;
  /** Case-insensitive substring of the content (or the id). */
  q?: string;
  cursor?: string;
  limit?: number;
}

export interface MemoryRow {
  id: string;
  tenant: string;
  namespace: string;
  type: string;
  status: string;
  importance: number;
  effectiveImportance: number;
  content: string;
  tags: string[];
  updatedAt: string;
  lastAccessedAt: string;
}

export interface MemoryPage {
  rows: MemoryRow[];
  /** Memories matching the attribute filters (exact, from the backend's count). */
  total: number;
  /** Records examined by this request (tag and text filters are applied while scanning). */
  scanned: number;
  /** Continue from here; absent once every matching memory was seen. */
  cursor?: string;
}

const STATUSES = ['active', 'superseded', 'pruned'];
/** Backend page size while scanning; cursors depend on it. */
const SCAN_PAGE = 500;
/** Records one request examines for tag/text filters before it answers with a cursor to continue. */
const SCAN_BUDGET = 20_000;
const MAX_LIMIT = 200;

interface Cursor {
  /** The backend cursor of the page to resume in (undefined: the first page). */
  b?: string;
  /** Records of that page already consumed. */
  s: number;
}

function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify(cursor)).toString('base64url');
}

function decodeCursor(text: string | undefined): Cursor {
  if (!text) return { s: 0 };
  try {
    const c = JSON.parse(Buffer.from(text, 'base64url').toString()) as Cursor;
    if (typeof c.s === 'number' && (c.b === undefined || typeof c.b === 'string')) return c;
  } catch {}
  throw invalidInput('Invalid cursor: start again from the first page.');
}

/** The backend filter of a query: every condition the backend can evaluate itself. */
export function memoryFilter(query: MemoryQuery): RecordFilter {
  const where: Record<string, string> = { kind: KIND.memory };
  if (query.type) where.type = assertMemoryType(query.type);
  const status = query.status || 'all';
  if (status !== 'all') {
    if (!STATUSES.includes(status))
      throw invalidInput(`status must be one of all, ${STATUSES.join(', ')}; got ${status}.`);
    where.status = status;
  }
  const namespaces = query.namespace
    ? [query.namespace]
    : query.branch
      ? [`project:${query.branch}`, `reference:${query.branch}`]
      : undefined;
  return {
    tenant: query.tenant === undefined || query.tenant === '*' ? null : query.tenant,
    where,
    ...(namespaces ? { namespaces } : {}),
  };
}

/**
 * One page of the memories table, in id order, over every memory (never
 * loading them all). Tag and text filters are applied while scanning, at
 * most SCAN_BUDGET records per request; the cursor continues the scan.
 */
export async function listMemories(stores: Stores, query: MemoryQuery): Promise<MemoryPage> {
  const memory = await stores.read();
  const filter = memoryFilter(query);
  const limit = Math.min(Math.max(1, Math.floor(query.limit ?? 50)), MAX_LIMIT);
  const needle = query.q?.trim().toLowerCase() ?? '';
  const tag = query.tag?.trim() ?? '';
  const keep = (m: Memory) =>
    (tag === '' || m.tags.includes(tag)) &&
    (needle === '' || m.content.toLowerCase().includes(needle) || m.id.toLowerCase() === needle);
  const now = stores.now();
  const rows: MemoryRow[] = [];
  let { b: backendCursor, s: skip } = decodeCursor(query.cursor);
  let scanned = 0;
  const total = await memory.backend.count(filter);
  for (;;) {
    const page = await memory.backend.scan({ filter, cursor: backendCursor, limit: SCAN_PAGE, withVectors: false });
    let i = skip;
    for (; i < page.records.length && rows.length < limit && scanned < SCAN_BUDGET; i++) {
      scanned++;
      const m = recordToMemory(page.records[i]!);
      if (keep(m)) rows.push(toRow(stores, m, now));
    }
    if (i < page.records.length) return { rows, total, scanned, cursor: encodeCursor({ b: backendCursor, s: i }) };
    if (page.cursor === undefined) return { rows, total, scanned };
    backendCursor = page.cursor;
    skip = 0;
    if (rows.length >= limit || scanned >= SCAN_BUDGET)
      return { rows, total, scanned, cursor: encodeCursor({ b: backendCursor, s: 0 }) };
  }
}

function toRow(stores: Stores, m: Memory, now: number): MemoryRow {
  return {
    id: m.id,
    tenant: m.tenant,
    namespace: m.namespace,
    type: m.type,
    status: statusOf(m),
    importance: m.importance,
    effectiveImportance: effectiveImportance(
      m.importance,
      toMillis(m.lastAccessedAt),
      now,
      stores.halfLifeHours(m.type),
    ),
    content: m.content,
    tags: m.tags,
    updatedAt: m.updatedAt,
    lastAccessedAt: m.lastAccessedAt,
  };
}

export interface DecayCurve {
  halfLifeHours: number;
  threshold: number;
  importance: number;
  lastAccessedAt: string;
  /** When it falls below the threshold if never used again (ISO); null when it never decays. */
  pruneAt: string | null;
  /** Effective importance now. */
  now: { at: string; value: number };
  /** Sampled curve: epoch ms and effective importance. */
  points: [number, number][];
}

export interface MemoryDetail {
  memory: Memory;
  status: string;
  history: HistoryEntry[];
  decay: DecayCurve;
}

/** One memory (of any tenant), its whole history and its decay curve. */
export async function memoryDetail(stores: Stores, id: string): Promise<MemoryDetail> {
  const any = await stores.read();
  const [record] = await any.backend.get([id], { tenant: null, withVectors: false });
  if (!record || record.attributes.kind !== KIND.memory) {
    throw new AgentMemoryError(
      'NOT_FOUND',
      `No memory with id ${id} in this store (it may have been forgotten or compacted).`,
      {
        details: { id },
      },
    );
  }
  const memory = recordToMemory(record);
  const history = await (await stores.read({ tenant: memory.tenant })).history(id);
  return { memory, status: statusOf(memory), history, decay: decayCurve(stores, memory, stores.now()) };
}

const HOUR = 3_600_000;

export function decayCurve(stores: Stores, memory: Memory, now: number): DecayCurve {
  const halfLife = stores.halfLifeHours(memory.type);
  const threshold = stores.pruneThreshold;
  const last = toMillis(memory.lastAccessedAt);
  const prune = pruneInstant(memory.importance, last, halfLife, threshold);
  const finite = Number.isFinite(prune);
  // From the last access to a bit past the prune date (or six half-lives), and never short of now.
  const end = Math.max(now, finite ? prune + (prune - last) * 0.25 : last + 6 * halfLife * HOUR, last + HOUR);
  const n = 160;
  const points: [number, number][] = [];
  for (let i = 0; i <= n; i++) {
    const t = last + ((end - last) * i) / n;
    points.push([t, effectiveImportance(memory.importance, last, t, halfLife)]);
  }
  return {
    halfLifeHours: halfLife,
    threshold,
    importance: memory.importance,
    lastAccessedAt: memory.lastAccessedAt,
    pruneAt: finite ? new Date(prune).toISOString() : null,
    now: { at: new Date(now).toISOString(), value: effectiveImportance(memory.importance, last, now, halfLife) },
    points,
  };
}
