export { MIGRATIONS, type Migration, migrate, readSchemaVersion, SCHEMA_VERSION } from './migrations';
export { DEFAULT_SCHEMA, DEFAULT_TABLE, type TableNames, tableNames } from './names';
