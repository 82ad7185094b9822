import type { Schemas } from '@qdrant/js-client-rest';

/** Named vectors of an agentmem collection. */
export const DENSE_VECTOR = 'dense';
export const SPARSE_VECTOR = 'bm25';

/** Payload fields of every point. */
export const FIELD = {
  id: 'record_id',
  namespace: 'namespace',
  tenant: 'tenant',
  text: 'text',
  context: 'context',
  attributes: 'attributes',
  payload: 'payload',
  /** The record's entity keys (memory <-> entity links), a keyword array. */
  links: 'links',
} as const;

/** Prefix of agentmem's keys in the collection metadata (other tools may keep their own keys there). */
export const META_PREFIX = 'agentmem:';

/** Attribute keys become payload paths (`attributes.<key>`), so they must not contain path syntax. */
export const ATTRIBUTE_KEY = /^[A-Za-z0-9_-]+$/;

export function attributePath(key: string): string {
  return `${FIELD.attributes}.${key}`;
}

/**
 * Payload indexes created with the collection: the fields every scope filter
 * and the attributes core filters on (kind, status, type, hashes, ids, times).
 */
export function payloadIndexes(options: {
  tenantIndex: boolean;
}): { field: string; schema: Schemas['PayloadFieldSchema'] }[] {
  const keyword = (field: string) => ({ field, schema: 'keyword' as const });
  return [
    keyword(FIELD.id),
    keyword(FIELD.namespace),
    keyword(FIELD.links),
    {
      field: FIELD.tenant,
      schema: options.tenantIndex ? { type: 'keyword', is_tenant: true } : 'keyword',
    },
    ...['kind', 'status', 'type', 'contentHash', 'memoryId', 'action', 'agentId', 'mergeId'].map((k) =>
      keyword(attributePath(k)),
    ),
    ...['createdAt', 'updatedAt', 'lastAccessedAt', 'occurredAt', 'at'].map((k) => ({
      field: attributePath(k),
      schema: 'integer' as const,
    })),
    { field: attributePath('importance'), schema: 'float' as const },
  ];
}
