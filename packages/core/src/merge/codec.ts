import type { AttributeValue, BackendRecord, JsonObject } from '../contracts';
import { linkKeys } from '../store/codec';

/** A record as JSON (vector as base64 of its float32 bytes), for merge records. */
export interface SerializedRecord {
  id: string;
  namespace: string;
  tenant: string;
  text: string;
  attributes: Record<string, AttributeValue>;
  payload: JsonObject;
  vector?: string;
  /** Entity link keys; merge records written before links existed lack them (re-derived from the payload). */
  links?: string[];
}

export function serializeRecord(r: BackendRecord): SerializedRecord {
  const out: SerializedRecord = {
    id: r.id,
    namespace: r.namespace,
    tenant: r.tenant,
    text: r.text,
    attributes: r.attributes,
    payload: r.payload,
  };
  if (r.vector) out.vector = Buffer.from(r.vector.buffer, r.vector.byteOffset, r.vector.byteLength).toString('base64');
  if (r.links && r.links.length > 0) out.links = [...r.links];
  return out;
}

export function deserializeRecord(s: SerializedRecord): BackendRecord {
  const record: BackendRecord = {
    id: s.id,
    namespace: s.namespace,
    tenant: s.tenant,
    text: s.text,
    attributes: s.attributes,
    payload: s.payload,
  };
  if (s.vector) {
    const bytes = Buffer.from(s.vector, 'base64');
    record.vector = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
  }
  // Undo puts the record back as it was, links included, or recall through entities would miss it.
  const entities = s.payload.entities;
  if (s.links) record.links = [...s.links];
  else if (Array.isArray(entities) && entities.length > 0) record.links = linkKeys(entities as { key: string }[]);
  return record;
}
