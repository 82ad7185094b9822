export { openMemory } from './open-memory';
export {
  DEFAULT_DB_PATH,
  DEFAULT_HTTP_PORT,
  DEFAULT_QDRANT_COLLECTION,
  LOOPBACK_HOSTS,
  type McpServerConfig,
  type ParsedArgs,
  parseServerArgs,
  resolveConfig,
  type ServerFlags,
  USAGE,
} from './server-config';
