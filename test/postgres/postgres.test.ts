import { describe, inject } from 'vitest';
import { postgresSuite } from './suite';

describe('PostgresBackend on PGlite over the wire protocol', () => {
  postgresSuite(() => inject('pgliteUrl'), 'PGlite over pg');
});
