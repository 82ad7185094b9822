import type { EntityKind, EntityMention, Memory, MemoryBackend, RecordFilter } from '../contracts';
import { AgentMemoryError, invalidInput } from '../errors';
import { DATE_KEY_PREFIX, entityKey } from './entity-key';

/** An entity of the store: its key, how it is written, its kind, and how many memories link to it. */
export interface EntitySummary {
  key: string;
  name: string;
  kind: EntityKind;
  /** Memories linked to it in scope (active or not). */
  count: number;
}

/** An entity that shares memories with another, and how many. */
export interface EntityNeighbour extends EntitySummary {
  /** Memories that mention both. */
  shared: number;
}

/** An entity named by its name as written ("Caroline"), or by its key (`{ key: 'carolin' }`, `date:2023-05-07`). */
export type EntityRef = string | { key: string };

/** The link key of an entity reference (a date key is taken as it is). */
export function entityRefKey(entity: EntityRef): string {
  if (typeof entity === 'object' && entity !== null && typeof entity.key === 'string' && entity.key !== '')
    return entity.key;
  if (typeof entity === 'string' && entity.trim() !== '') {
    const key = entity.startsWith(DATE_KEY_PREFIX) ? entity : entityKey(entity);
    if (key !== '') return key;
  }
  throw invalidInput(
    `Name an entity by its name ("Caroline") or its key ({ key: "carolin" }), got ${JSON.stringify(entity)}; a name made only of stop words has no key.`,
  );
}

/** What the entity API needs of a store: its backend, the filter recall uses and a way to read memories. */
export interface EntityScope {
  backend: MemoryBackend;
  /** Tenant and namespaces to look in; `where` holds the memory filter. */
  filter: RecordFilter;
  /** The memories with these ids that the filter admits. */
  read: (ids: readonly string[]) => Promise<Memory[]>;
}

/** Records read per `linked` page when a call covers every memory of an entity. */
const PAGE = 500;
/** Largest page of `entities()`. */
const MAX_ENTITIES_PAGE = 1000;

function linkIndex(backend: MemoryBackend): Required<Pick<MemoryBackend, 'linked' | 'linkKeys'>> {
  if (backend.capabilities.links !== true || !backend.linked || !backend.linkKeys) {
    throw new AgentMemoryError(
      'CAPABILITY_MISSING',
      `The ${backend.provider} backend keeps no entity links (capabilities.links); use the in-memory, SQLite, Postgres or Qdrant backend.`,
    );
  }
  return { linked: backend.linked.bind(backend), linkKeys: backend.linkKeys.bind(backend) };
}

const scopeOf = (filter: RecordFilter) => ({
  tenant: filter.tenant,
  ...(filter.namespaces ? { namespaces: filter.namespaces } : {}),
});

/** Every memory linked to an entity, page by page in id order, however many. */
async function* linkedMemories(scope: EntityScope, key: string): AsyncGenerator<Memory> {
  const { linked } = linkIndex(scope.backend);
  let after: string | undefined;
  for (;;) {
    const [page] = await linked({ ...scopeOf(scope.filter), keys: [key], limit: PAGE, ...(after ? { after } : {}) });
    const ids = page?.ids ?? [];
    if (ids.length === 0) return;
    yield* await scope.read(ids);
    if (ids.length < PAGE) return;
    after = ids[ids.length - 1];
  }
}

/** How an entity is written and what kind it is, from the memories that mention it. */
function describe(key: string, memories: readonly Memory[]): { name: string; kind: EntityKind } {
  for (const m of memories) {
    const e = m.entities?.find((x) => x.key === key);
    if (e) return { name: e.name, kind: e.kind };
  }
  return { name: key, kind: key.startsWith(DATE_KEY_PREFIX) ? 'date' : 'name' };
}

/**
 * The entities in scope, page by page in key order, with their names, kinds
 * and memory counts (`prefix`: keys starting with it, e.g. `date:2023-05`).
 */
export async function listEntities(
  scope: EntityScope,
  options: { prefix?: string; cursor?: string; limit?: number } = {},
): Promise<{ entities: EntitySummary[]; cursor?: string }> {
  const { linked, linkKeys } = linkIndex(scope.backend);
  const limit = options.limit ?? 100;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_ENTITIES_PAGE) {
    throw invalidInput(`limit must be a whole number from 1 to ${MAX_ENTITIES_PAGE}, got ${limit}.`);
  }
  const page = await linkKeys({
    ...scopeOf(scope.filter),
    limit,
    ...(options.prefix ? { prefix: options.prefix } : {}),
    ...(options.cursor ? { cursor: options.cursor } : {}),
  });
  // One memory per key says how the entity is written.
  const firsts = await linked({ ...scopeOf(scope.filter), keys: page.keys.map((k) => k.key), limit: 1 });
  const byId = new Map((await scope.read(firsts.flatMap((f) => f.ids))).map((m) => [m.id, m]));
  const entities = page.keys.map(({ key, count }, i) => {
    const first = byId.get(firsts[i]?.ids[0] ?? '');
    return { key, count, ...describe(key, first ? [first] : []) };
  });
  return page.cursor ? { entities, cursor: page.cursor } : { entities };
}

/** Every memory linked to an entity that the scope admits (active ones unless asked), in id order. */
export async function entityMemories(scope: EntityScope, entity: EntityRef): Promise<Memory[]> {
  const key = entityRefKey(entity);
  const out: Memory[] = [];
  for await (const m of linkedMemories(scope, key)) out.push(m);
  return out;
}

/**
 * The entities that share memories with one, most shared first (ties by
 * key), over every memory linked to it; at most `limit` (default 20).
 */
export async function entityNeighbours(
  scope: EntityScope,
  entity: EntityRef,
  options: { limit?: number } = {},
): Promise<EntityNeighbour[]> {
  const key = entityRefKey(entity);
  const limit = options.limit ?? 20;
  if (!Number.isInteger(limit) || limit < 1) throw invalidInput(`limit must be a positive whole number, got ${limit}.`);
  const shared = new Map<string, { mention: EntityMention; shared: number }>();
  for await (const m of linkedMemories(scope, key)) {
    for (const e of m.entities ?? []) {
      if (e.key === key) continue;
      const entry = shared.get(e.key);
      if (entry) entry.shared++;
      else shared.set(e.key, { mention: e, shared: 1 });
    }
  }
  const top = [...shared.values()]
    .sort((a, b) => b.shared - a.shared || (a.mention.key < b.mention.key ? -1 : 1))
    .slice(0, limit);
  if (top.length === 0) return [];
  const counts = await linkIndex(scope.backend).linked({
    ...scopeOf(scope.filter),
    keys: top.map((t) => t.mention.key),
    limit: 0,
  });
  const countOf = new Map(counts.map((c) => [c.key, c.count]));
  return top.map(({ mention, shared: n }) => ({
    key: mention.key,
    name: mention.name,
    kind: mention.kind,
    count: countOf.get(mention.key) ?? n,
    shared: n,
  }));
}
