import type { EntityNeighbour, EntitySummary } from '@agentmem/core';
import type { Stores } from '../stores';

export interface EntityQuery {
  tenant?: string;
  branch?: string;
  /** Keys starting with this (a name's first word, lower case and stemmed, or `date:2023-05`). */
  prefix?: string;
  cursor?: string;
  limit?: number;
}

export interface EntityPage {
  entities: EntitySummary[];
  cursor?: string;
}

export interface EntityMemoryRow {
  id: string;
  namespace: string;
  type: string;
  content: string;
  occurredAt: string;
  /** How the memory names the entity when that differs from its name ("yesterday" for a date). */
  mentioned?: string;
}

export interface EntityDetail {
  key: string;
  name: string;
  kind: string;
  memories: EntityMemoryRow[];
  neighbours: EntityNeighbour[];
}

const MAX_LIMIT = 500;

/** One page of the entities the memories of a tenant and branch mention, in key order. */
export async function listEntityPage(stores: Stores, query: EntityQuery): Promise<EntityPage> {
  const memory = await stores.read({ tenant: query.tenant, branch: query.branch });
  const limit = Math.min(Math.max(1, Math.floor(query.limit ?? 100)), MAX_LIMIT);
  return memory.entities({
    limit,
    ...(query.prefix ? { prefix: query.prefix } : {}),
    ...(query.cursor ? { cursor: query.cursor } : {}),
  });
}

/** An entity's memories (every one, active) and the entities that share them. */
export async function entityDetail(
  stores: Stores,
  query: { key: string; tenant?: string; branch?: string },
): Promise<EntityDetail> {
  const memory = await stores.read({ tenant: query.tenant, branch: query.branch });
  const memories = await memory.entityMemories({ key: query.key });
  const neighbours = await memory.entityNeighbours({ key: query.key }, { limit: 30 });
  const mention = memories.flatMap((m) => m.entities ?? []).find((e) => e.key === query.key);
  return {
    key: query.key,
    name: mention?.name ?? query.key,
    kind: mention?.kind ?? 'name',
    memories: memories.map((m) => {
      const own = m.entities?.find((e) => e.key === query.key);
      return {
        id: m.id,
        namespace: m.namespace,
        type: m.type,
        content: m.content,
        occurredAt: m.occurredAt,
        ...(own?.text ? { mentioned: own.text } : {}),
      };
    }),
    neighbours,
  };
}
