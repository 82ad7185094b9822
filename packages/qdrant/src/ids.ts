import { createHash } from 'node:crypto';

/** The UUIDv5 namespace of agentmem record ids (fixed forever: changing it orphans every stored point). */
export const RECORD_ID_NAMESPACE = '6f1c2a7e-3b8d-5c4f-9e0a-1d2b3c4d5e6f';

const namespaceBytes = Buffer.from(RECORD_ID_NAMESPACE.replace(/-/g, ''), 'hex');

/**
 * RFC 4122 UUIDv5 (SHA-1, name-based) of a string. Qdrant point ids must be
 * unsigned integers or UUIDs, so every record id is mapped through this; the
 * original id stays in the payload for reverse lookups.
 */
export function uuidv5(name: string, namespace: Buffer = namespaceBytes): string {
  const hash = createHash('sha1').update(namespace).update(name, 'utf8').digest();
  const bytes = hash.subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The Qdrant point id of a record id. */
export function pointId(recordId: string): string {
  return uuidv5(recordId);
}
