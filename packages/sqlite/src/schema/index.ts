export {
  APPLICATION_ID,
  ATTRIBUTE_COLUMNS,
  blobVector,
  CODES_TABLE,
  codeBlob,
  createVectorTableSql,
  MIGRATIONS,
  type Migration,
  SCHEMA_VERSION,
  VECTOR_SPACE_TABLE,
  VECTOR_TABLE,
} from './migrations';
export {
  beginImmediateNow,
  CACHE_KIB,
  ensureParentDirectory,
  isAgentmemDatabase,
  isInMemoryPath,
  isSqliteError,
  migrate,
  type OpenDatabaseOptions,
  openDatabase,
  readSchemaInfo,
  type SchemaInfo,
  WRITE_CACHE_KIB,
} from './open-database';
export { checkVectorExtension, useVectorExtension } from './vector-extension';
