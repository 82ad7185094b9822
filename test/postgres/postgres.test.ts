import { describe, inject } from 'vitest';
import { postgresBehaviourSuite, postgresSuite } from './suite';

const url = () => inject('pgliteUrl');

describe('PostgresBackend on PGlite over the wire protocol', () => {
  postgresSuite(url, 'PGlite over pg');
  describe('PostgresBackend behaviour', () => postgresBehaviourSuite(url, { singleSession: true }));
});
