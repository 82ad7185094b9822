export { SqliteBackend, type SqliteBackendOptions, type TransactionFrame, TransactionGate } from './backend';
export { createSqliteMemory, type SqliteMemoryOptions } from './memory';
export { compileFilter, keywordMatchExpression, SqlBuilder, type SqlParams } from './query';
export {
  APPLICATION_ID,
  createVectorTableSql,
  ensureParentDirectory,
  isAgentmemDatabase,
  MIGRATIONS,
  type Migration,
  migrate,
  type OpenDatabaseOptions,
  openDatabase,
  readSchemaInfo,
  SCHEMA_VERSION,
  type SchemaInfo,
  useVectorExtension,
  VECTOR_SPACE_TABLE,
  VECTOR_TABLE,
} from './schema';
export { sqliteSnapshotFormat } from './snapshot';
