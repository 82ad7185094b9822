import {
  branchOfNamespace,
  HISTORY_NAMESPACE,
  HISTORY_PENDING,
  isMemoryType,
  KIND,
  MEMORY_TYPES,
  type MemoryType,
  SKILLS_NAMESPACE,
  SYSTEM_NAMESPACE_PREFIX,
} from '@agentmem/core';
import type { Stores } from '../stores';

export interface OverviewRow {
  tenant: string;
  /** '' for the global namespaces (user, feedback). */
  branch: string;
  namespace: string;
  type: MemoryType;
  active: number;
  inactive: number;
}

export interface Overview {
  store: { provider: string; label: string; capabilities: Record<string, boolean> };
  embedder: { id: string; dimension: number; lexical: boolean };
  scope: { tenant: string; branch: string };
  rows: OverviewRow[];
  totals: { active: number; inactive: number; tenants: number; branches: number };
  skills: number;
  settings: { pruneThreshold: number; halfLifeHours: Record<MemoryType, number>; allowWrites: boolean };
}

/** The type a standard namespace holds (`user`, `project:main`, ...); undefined for custom namespaces. */
function typeOfNamespace(namespace: string): MemoryType | undefined {
  const prefix = namespace.split(':')[0];
  return isMemoryType(prefix) ? prefix : undefined;
}

/**
 * Memories per tenant × branch × type with counts only (no record is read):
 * fast enough for the first paint of a 100k store.
 */
export async function loadOverview(stores: Stores, label: string): Promise<Overview> {
  const memory = await stores.read();
  const backend = memory.backend;
  const pairs = (await backend.namespaces({ tenant: null })).filter(
    (n) => !n.namespace.startsWith(SYSTEM_NAMESPACE_PREFIX),
  );
  const count = (tenant: string, namespace: string, where: Record<string, string>) =>
    backend.count({ tenant, namespaces: [namespace], where: { kind: KIND.memory, ...where } });
  const rows: OverviewRow[] = [];
  await Promise.all(
    pairs.map(async ({ tenant, namespace }) => {
      const known = typeOfNamespace(namespace);
      // A custom namespace may hold several types: count each.
      for (const type of known ? [known] : MEMORY_TYPES) {
        const where: Record<string, string> = known ? {} : { type };
        const [all, active] = await Promise.all([
          count(tenant, namespace, where),
          count(tenant, namespace, { ...where, status: 'active' }),
        ]);
        if (all === 0) continue;
        rows.push({
          tenant,
          branch: branchOfNamespace(namespace) ?? '',
          namespace,
          type,
          active,
          inactive: all - active,
        });
      }
    }),
  );
  rows.sort(
    (a, b) =>
      cmp(a.tenant, b.tenant) || cmp(a.branch, b.branch) || cmp(a.namespace, b.namespace) || cmp(a.type, b.type),
  );
  const skills = await backend.count({
    tenant: memory.skills.tenant,
    namespaces: [SKILLS_NAMESPACE],
    where: { kind: KIND.skill },
  });
  return {
    store: { provider: backend.provider, label, capabilities: { ...backend.capabilities } },
    embedder: {
      id: memory.embedder.id,
      dimension: memory.embedder.dimension,
      lexical: memory.embedder.lexical === true,
    },
    scope: { tenant: stores.memory.tenant, branch: stores.memory.branch },
    rows,
    totals: {
      active: rows.reduce((s, r) => s + r.active, 0),
      inactive: rows.reduce((s, r) => s + r.inactive, 0),
      tenants: new Set(rows.map((r) => r.tenant)).size,
      branches: new Set(rows.filter((r) => r.branch !== '').map((r) => r.branch)).size,
    },
    skills,
    settings: {
      pruneThreshold: stores.pruneThreshold,
      halfLifeHours: Object.fromEntries(MEMORY_TYPES.map((t) => [t, stores.halfLifeHours(t)])) as Record<
        MemoryType,
        number
      >,
      allowWrites: stores.allowWrites,
    },
  };
}

export interface Timeline {
  /** Start of each bucket (epoch ms) and its width. */
  bucketMs: number;
  buckets: { start: number; counts: Record<string, number> }[];
  actions: string[];
  total: number;
}

const DAY = 86_400_000;

/** Every history entry of every tenant, counted per day (per week past ~6 months); one scan, loaded after the counts. */
export async function loadTimeline(stores: Stores): Promise<Timeline> {
  const memory = await stores.read();
  const perDay = new Map<number, Record<string, number>>();
  const actions = new Set<string>();
  let total = 0;
  const count = (at: number, action: string) => {
    const day = Math.floor(at / DAY) * DAY;
    const counts = perDay.get(day) ?? {};
    counts[action] = (counts[action] ?? 0) + 1;
    perDay.set(day, counts);
    actions.add(action);
    total++;
  };
  // The create entries of memories rememberMany wrote and nothing changed since are implied by the
  // records (no history row): each counts as a create at its createdAt, as history() returns it.
  for await (const record of memory.scanAttributes(
    { tenant: null, where: { kind: KIND.memory, [HISTORY_PENDING]: true } },
    ['createdAt'],
  )) {
    const at = Number(record.attributes.createdAt);
    if (Number.isFinite(at)) count(at, 'create');
  }
  for await (const record of memory.scanRecords({
    tenant: null,
    namespaces: [HISTORY_NAMESPACE],
    where: { kind: KIND.history },
  })) {
    const at = Number(record.attributes.at);
    const action = String(record.attributes.action);
    if (Number.isFinite(at)) count(at, action);
  }
  const days = [...perDay.keys()].sort((a, b) => a - b);
  if (days.length === 0) return { bucketMs: DAY, buckets: [], actions: [], total: 0 };
  // At least the last 30 days up to today, so a young store still reads as a timeline.
  const today = Math.floor(stores.now() / DAY) * DAY;
  const first = Math.min(days[0]!, today - 29 * DAY);
  const last = Math.max(days[days.length - 1]!, today);
  const bucketMs = (last - first) / DAY > 180 ? 7 * DAY : DAY;
  const buckets: Timeline['buckets'] = [];
  for (let start = first; start <= last; start += bucketMs) buckets.push({ start, counts: {} });
  for (const [day, counts] of perDay) {
    const bucket = buckets[Math.floor((day - first) / bucketMs)]!;
    for (const [action, n] of Object.entries(counts)) bucket.counts[action] = (bucket.counts[action] ?? 0) + n;
  }
  return { bucketMs, buckets, actions: [...actions].sort(), total };
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
