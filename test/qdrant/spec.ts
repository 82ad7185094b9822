import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * Qdrant's own OpenAPI spec, read at test time from `../shared/qdrant/openapi.json`
 * relative to the repository root (never copied into the repo).
 */
export const QDRANT_SPEC_PATH = fileURLToPath(new URL('../../../shared/qdrant/openapi.json', import.meta.url));

export const qdrantSpecAvailable = existsSync(QDRANT_SPEC_PATH);

/** Shown in the names of tests skipped for want of the spec. */
export const SPEC_MISSING = `skipped: Qdrant's OpenAPI spec is not at ${QDRANT_SPEC_PATH} (../shared/qdrant/openapi.json from the repo root); the fake Qdrant server validates every request against it`;

export function loadQdrantSpec(): OpenApiDocument {
  return JSON.parse(readFileSync(QDRANT_SPEC_PATH, 'utf8')) as OpenApiDocument;
}

export interface OpenApiDocument {
  info: { version: string };
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: { schemas: Record<string, unknown> };
}

export interface OpenApiOperation {
  operationId: string;
  parameters?: { name: string; in: 'path' | 'query' | 'header'; required?: boolean; schema: unknown }[];
  requestBody?: { required?: boolean; content: Record<string, { schema: unknown }> };
  responses: Record<string, { content?: Record<string, { schema: unknown }> }>;
}
