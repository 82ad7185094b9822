import type { BackendRecord, JsonObject } from '@agentmem/core';
import { invalidInput } from '@agentmem/core';

// A record as it crosses the wire: the columns a SELECT reads back, and the text forms of
// vectors and payloads that an INSERT sends.

/** The columns every record query selects. */
export interface RecordRow {
  id: string;
  tenant: string;
  namespace: string;
  text: string;
  context: string;
  attributes: Record<string, BackendRecord['attributes'][string]>;
  payload: JsonObject;
  embedding?: string | null;
}

/** A selected row as the backend contract's record (its vector parsed when the query read it). */
export function decode(row: RecordRow): BackendRecord {
  const record: BackendRecord = {
    id: row.id,
    namespace: row.namespace,
    tenant: row.tenant,
    text: row.text,
    attributes: row.attributes,
    payload: row.payload,
  };
  if (row.context) record.context = row.context;
  if (typeof row.embedding === 'string') record.vector = parseVector(row.embedding);
  return record;
}

/** pgvector's text form; JavaScript prints each float32 (as a double) exactly, so values round-trip. */
export function vectorLiteral(v: Float32Array): string {
  return `[${Array.from(v).join(',')}]`;
}

export function parseVector(text: string): Float32Array {
  const body = text.slice(1, -1);
  return body === '' ? new Float32Array(0) : Float32Array.from(body.split(','), Number);
}

export function checkPayload(payload: JsonObject): JsonObject {
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload))
    throw invalidInput('A record payload must be a JSON object.');
  return payload;
}
