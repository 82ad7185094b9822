import type { EntityMention, EntitySignal, MemoryBackend, RecordFilter, SearchHit } from '../contracts';
import { matchesFilter } from '../backends/match-filter';
import { keywordTerms } from '../text/keyword-terms';
import { DATE_KEY_PREFIX } from './entity-key';

/**
 * An entity linked to more memories than this in the recalled scope is too
 * common to single any out (a conversation's speakers, "today"): it is left
 * out, as a stop word is. Also the most memories read per entity. Equal to
 * recall's smallest candidate pool (50): an entity that could fill the pool
 * alone says nothing about which of its memories matter. (25, 50 and 100
 * give the same LoCoMo R@10 within 0.1 on conversations 1-2.)
 */
export const ENTITY_LINK_LIMIT = 50;
/**
 * How much a memory linked to an entity the query names gains, times the entity's weight (of the best
 * score). A nudge: keyword search already matches a name the query writes, so this mostly orders
 * near-ties and admits memories linked to the name without writing it (a model's entities). 0.05, 0.1
 * and 0.2 are within 0.1 R@10 on LoCoMo conversations 1-2; the middle one.
 */
export const ENTITY_QUERY_WEIGHT = 0.1;
/**
 * The second hop: a memory sharing an entity with one of the best candidates scores up to this share
 * of it, so it lands below the candidate that led to it. On LoCoMo conversations 1-2, 0 gives R@10
 * 81.9 and 0.2, 0.3, 0.5 all 82.5 (multi-hop 43.6 against 45.9); the middle of that plateau.
 */
export const ENTITY_HOP_WEIGHT = 0.3;
/** The best candidates whose entities are followed (the second hop); 3, 5 and 10 measure alike on conversations 1-2. */
export const ENTITY_HOP_SEEDS = 5;
/** Longest run of query words read as one entity name ("new york city"). */
const MAX_NAME_TERMS = 3;

export interface EntityEvidenceOptions {
  backend: MemoryBackend;
  query: string;
  /** Recall's filter: candidates reached through links are held to it too. */
  filter: RecordFilter;
  /** Candidates kept. */
  pool: number;
}

/** The entities a memory mentions, from its stored payload. */
export function entitiesOf(hit: SearchHit): EntityMention[] {
  const entities = (hit.record.payload as { entities?: unknown }).entities;
  return Array.isArray(entities) ? (entities as EntityMention[]) : [];
}

/**
 * The entity keys a query can name: every run of up to three of its keyword
 * terms, so a name the query writes in lower case is found too. Dates are
 * not looked up: date evidence already raises the candidates that occurred
 * on, or mention, a time the query names (counting them twice cost LoCoMo
 * single-hop questions that name a date).
 */
export function queryEntityKeys(query: string): string[] {
  const terms = keywordTerms(query);
  const keys = new Set<string>();
  for (let n = 1; n <= MAX_NAME_TERMS; n++) {
    for (let i = 0; i + n <= terms.length; i++) keys.add(terms.slice(i, i + n).join(' '));
  }
  return [...keys];
}

/** How much an entity linked to `count` memories tells: 1 for one memory, falling to ~0.18 at the limit. */
function entityWeight(count: number): number {
  return count === 0 || count > ENTITY_LINK_LIMIT
    ? 0
    : Math.log(1 + ENTITY_LINK_LIMIT / count) / Math.log(1 + ENTITY_LINK_LIMIT);
}

/**
 * Entity evidence on recall's keyword candidates (docs/entities.md): one
 * `linked` lookup for the entities the query names and those of the best
 * candidates, then
 * 1. a memory linked to an entity the query names gains
 *    `ENTITY_QUERY_WEIGHT x weight` of the best score (and is a candidate even
 *    when no keyword matched it);
 * 2. a memory that shares an entity with one of the `ENTITY_HOP_SEEDS` best
 *    candidates (the second hop) scores at least `ENTITY_HOP_WEIGHT x weight`
 *    of that candidate's score;
 * where an entity's weight falls with the number of memories it links and is
 * 0 past `ENTITY_LINK_LIMIT`. Memories reached only through links are read
 * and held to recall's filter. Returns the candidates rescored, best first,
 * at most `pool`.
 */
export async function applyEntityEvidence(
  hits: readonly SearchHit[],
  options: EntityEvidenceOptions,
): Promise<SearchHit[]> {
  const { backend } = options;
  if (!backend.linked || backend.capabilities.links !== true || hits.length === 0) return [...hits];
  const queryKeys = new Set(queryEntityKeys(options.query));
  const seeds = hits.slice(0, ENTITY_HOP_SEEDS);
  const seedKeys = new Set<string>();
  // Dates are not followed: turns of one session share its dates, and session evidence already links them.
  for (const seed of seeds) {
    for (const e of entitiesOf(seed))
      if (!queryKeys.has(e.key) && !e.key.startsWith(DATE_KEY_PREFIX)) seedKeys.add(e.key);
  }
  const keys = [...queryKeys, ...seedKeys];
  if (keys.length === 0) return [...hits];
  const linked = await backend.linked({
    tenant: options.filter.tenant,
    ...(options.filter.namespaces ? { namespaces: options.filter.namespaces } : {}),
    keys,
    limit: ENTITY_LINK_LIMIT,
    maxCount: ENTITY_LINK_LIMIT,
  });
  const weight = new Map<string, number>();
  const idsOf = new Map<string, string[]>();
  for (const l of linked) {
    const w = entityWeight(l.count);
    if (w > 0) {
      weight.set(l.key, w);
      idsOf.set(l.key, l.ids);
    }
  }
  if (weight.size === 0) return [...hits];

  const best = Math.max(...hits.map((h) => h.score));
  if (!(best > 0)) return [...hits];
  const byId = new Map(hits.map((h) => [h.record.id, h]));
  const score = new Map(hits.map((h) => [h.record.id, h.score]));
  const evidence = new Map<string, EntitySignal>();
  for (const key of queryKeys) {
    const w = weight.get(key);
    if (w === undefined) continue;
    for (const id of idsOf.get(key)!) {
      score.set(id, (score.get(id) ?? 0) + ENTITY_QUERY_WEIGHT * w * best);
      const match = evidence.get(id) ?? { keys: [] };
      match.keys.push(key);
      evidence.set(id, match);
    }
  }
  for (const seed of seeds) {
    const seedScore = score.get(seed.record.id)!;
    for (const e of entitiesOf(seed)) {
      const w = weight.get(e.key);
      if (w === undefined || !seedKeys.has(e.key)) continue;
      const reach = ENTITY_HOP_WEIGHT * w * seedScore;
      for (const id of idsOf.get(e.key)!) {
        if (id === seed.record.id || (score.get(id) ?? 0) >= reach) continue;
        score.set(id, reach);
        evidence.set(id, { keys: evidence.get(id)?.keys ?? [], via: { id: seed.record.id, key: e.key } });
      }
    }
  }
  // Memories reached only through links are read, and kept when recall's filter admits them; one that
  // does not (superseded, another type, outside after/before) gives its place to the next.
  const ranked = [...score.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const out: SearchHit[] = [];
  for (let at = 0; at < ranked.length && out.length < options.pool; ) {
    const window = ranked.slice(at, at + options.pool - out.length);
    at += window.length;
    const missing = window.map(([id]) => id).filter((id) => !byId.has(id));
    if (missing.length > 0) {
      const records = await backend.get(missing, { tenant: options.filter.tenant, withVectors: false });
      for (const record of records)
        if (matchesFilter(record, options.filter)) byId.set(record.id, { record, score: 0 });
    }
    for (const [id, s] of window) {
      const hit = byId.get(id);
      if (!hit) continue;
      const match = evidence.get(id);
      out.push({ ...hit, score: s, ...(match ? { entity: match } : {}) });
    }
  }
  return out;
}
