export { createSqliteMemory, type SqliteMemoryOptions } from './create-sqlite-memory';
