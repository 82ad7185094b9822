import { describe } from 'vitest';
import { postgresBehaviourSuite, postgresSuite } from './suite';

/**
 * The same suite against a real PostgreSQL with pgvector. Skipped unless DATABASE_URL is set:
 *   docker run --rm -e POSTGRES_PASSWORD=pw -p 5432:5432 pgvector/pgvector:pg17
 *   DATABASE_URL=postgres://postgres:pw@localhost:5432/postgres npx vitest run test/postgres/postgres.int.test.ts
 * Every store lives in its own schema agentmem_t_*, dropped afterwards.
 */
const databaseUrl = process.env.DATABASE_URL;

describe.skipIf(!databaseUrl)(
  databaseUrl
    ? 'PostgresBackend on a real server (DATABASE_URL)'
    : 'PostgresBackend on a real server (skipped: set DATABASE_URL)',
  () => {
    postgresSuite(() => databaseUrl!, 'real server');
    describe('PostgresBackend behaviour', () => postgresBehaviourSuite(() => databaseUrl!, { singleSession: false }));
  },
);
