import { describe } from 'vitest';
import { describeServer } from './server/server-env';
import { postgresBehaviourSuite, postgresSuite } from './suite';

/**
 * The same suite as postgres.test.ts against a real PostgreSQL with pgvector: `npm run test:postgres`
 * (DATABASE_URL, or a throwaway server from ../shared/postgres). Every store lives in its own
 * schema agentmem_t_*, dropped afterwards.
 */
describeServer('PostgresBackend on a real server', (url) => {
  postgresSuite(url, 'real server');
  describe('PostgresBackend behaviour', () => postgresBehaviourSuite(url, { singleSession: false }));
});
