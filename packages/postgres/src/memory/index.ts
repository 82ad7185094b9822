export { createPostgresMemory, type PostgresMemoryOptions } from './create-postgres-memory';
