import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
// From the package's entry: the exports a user calls.
import { openDatabase, SqliteBackend, useVectorExtension } from '..';

const dir = mkdtempSync(join(tmpdir(), 'agentmem-sqlite-vec-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('useVectorExtension: your own sqlite-vec SQL on the store connection', () => {
  it("a backend's connection runs sqlite-vec's functions and vec0 tables once it is called (idempotent)", async () => {
    const backend = new SqliteBackend({ path: join(dir, 'own-sql.db') });
    await backend.init({ dimension: 3 });
    const db = backend.database;
    // Loaded where the backend itself calls it (its exact search), not at open.
    expect(() => db.prepare('SELECT vec_version()').pluck().get()).toThrow(/no such function: vec_version/);
    useVectorExtension(db);
    useVectorExtension(db);
    expect(db.prepare('SELECT vec_version()').pluck().get()).toMatch(/^v\d/);
    db.exec('CREATE VIRTUAL TABLE mine USING vec0(embedding float[3])');
    db.prepare('INSERT INTO mine (rowid, embedding) VALUES (1, ?)').run(new Float32Array([1, 0, 0]));
    expect(
      db
        .prepare('SELECT rowid FROM mine WHERE embedding MATCH ? AND k = 1')
        .pluck()
        .all(new Float32Array([1, 0, 0])),
    ).toEqual([1]);
    await backend.close();
  });

  it('a connection from openDatabase too', () => {
    const db = openDatabase(join(dir, 'open-database.db'));
    try {
      useVectorExtension(db);
      expect(
        db
          .prepare('SELECT vec_distance_cosine(?, ?)')
          .pluck()
          .get(new Float32Array([1, 0]), new Float32Array([0, 1])),
      ).toBeCloseTo(1, 6);
    } finally {
      db.close();
    }
  });
});
