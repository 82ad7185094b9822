export {
  classify,
  DEFAULT_RETRY,
  type FaultKind,
  HNSW_MAX_DIMENSION,
  type KeywordRanking,
  PostgresBackend,
  type PostgresBackendOptions,
  type RetryPolicy,
} from './backend';
export { createPostgresMemory, type PostgresMemoryOptions } from './memory';
export { compileFilter, keywordStatement, SqlBuilder, termsQuery, termsVector } from './query';
export {
  DEFAULT_SCHEMA,
  DEFAULT_TABLE,
  MIGRATIONS,
  type Migration,
  migrate,
  readSchemaVersion,
  SCHEMA_VERSION,
  type TableNames,
  tableNames,
} from './schema';
