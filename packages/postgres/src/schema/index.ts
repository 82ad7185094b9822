export type { Migration } from './migration';
export { MIGRATIONS, migrate, readSchemaVersion, SCHEMA_VERSION } from './migrations';
export { DEFAULT_SCHEMA, DEFAULT_TABLE, type TableNames, tableNames } from './names';
