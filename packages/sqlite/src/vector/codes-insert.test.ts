import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BackendRecord } from '@agentmem/core';
import { seededRandom } from '@agentmem/core/testing';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { SqliteBackend } from '../backend';
import { CODES_TABLE } from '../schema';
import { oneScope } from './written-codes';

const dir = mkdtempSync(join(tmpdir(), 'agentmem-codes-insert-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const random = seededRandom(5);

function record(i: number, tenant: string, namespace: string): BackendRecord {
  const vector = new Float32Array(16);
  for (let d = 0; d < 16; d++) vector[d] = random() - 0.5;
  return { id: `r${i}`, tenant, namespace, text: `text ${i}`, attributes: { kind: 'memory' }, payload: {}, vector };
}

describe('codes insert with one scope a chunk', () => {
  it('oneScope: true only when every row of the range has the first one’s tenant and namespace', () => {
    const rows = [
      { tenant: 't', namespace: 'n' },
      { tenant: 't', namespace: 'n' },
      { tenant: 't', namespace: 'm' },
      { tenant: 'u', namespace: 'm' },
    ].map((s) => ({ ...s, floats: new Float32Array(2) }));
    expect(oneScope(rows, 0, 2)).toBe(true);
    expect(oneScope(rows, 0, 3)).toBe(false);
    expect(oneScope(rows, 2, 2)).toBe(false);
    expect(oneScope(rows, 3, 1)).toBe(true);
  });

  it('each row keeps its own tenant and namespace, in chunks of one scope and of mixed scopes', async () => {
    const path = join(dir, 'scopes.db');
    const backend = new SqliteBackend({ path });
    await backend.init({ dimension: 16 });
    // 300 rows: a chunk of 128 of one scope, one of mixed scopes, then smaller chunks of both kinds.
    const scopes: [string, string][] = [];
    for (let i = 0; i < 300; i++) {
      if (i < 128) scopes.push(['', 'user']);
      else if (i < 256) scopes.push(i % 3 === 0 ? ['t1', 'user'] : ['', i % 2 ? 'other' : 'user']);
      else scopes.push(i < 290 ? ['t2', 'n2'] : [`t${i}`, 'n3']);
    }
    await backend.upsert(scopes.map(([tenant, namespace], i) => record(i, tenant, namespace)));
    const rows = backend.database
      .prepare(
        `SELECT r.id, v.tenant, v.namespace, r.tenant AS rt, r.namespace AS rn FROM records r JOIN ${CODES_TABLE} v ON v.rowid = r.rowid ORDER BY r.rowid`,
      )
      .all() as { id: string; tenant: string; namespace: string; rt: string; rn: string }[];
    expect(rows).toHaveLength(300);
    rows.forEach((row, i) => {
      expect(row.id).toBe(`r${i}`);
      expect([row.tenant, row.namespace]).toEqual(scopes[i]);
      expect([row.tenant, row.namespace]).toEqual([row.rt, row.rn]);
    });
    // Each scope's dense search finds its own rows only.
    const hits = await backend.search({
      mode: 'dense',
      vector: record(0, '', '').vector!,
      k: 400,
      filter: { tenant: 't2' },
    });
    expect(hits.map((h) => h.record.id).sort()).toEqual(
      scopes.flatMap(([tenant], i) => (tenant === 't2' ? [`r${i}`] : [])).sort(),
    );
    await backend.close();
  });
});

describe('codes insert of rows just inserted', () => {
  it('takes OR FAIL (no statement journal); a new vector of a row that has one takes OR REPLACE', async () => {
    const backend = new SqliteBackend({ path: join(dir, 'conflict.db') });
    await backend.init({ dimension: 16 });
    const prepare = vi.spyOn(backend.database, 'prepare');
    const codesInserts = () =>
      prepare.mock.calls.map(([sql]) => sql).filter((sql) => sql.includes(`INTO ${CODES_TABLE}`));
    await backend.upsert(Array.from({ length: 40 }, (_, i) => record(i, '', 'user')));
    expect(codesInserts().length).toBeGreaterThan(0);
    expect(codesInserts().every((sql) => sql.startsWith('INSERT OR FAIL'))).toBe(true);
    prepare.mockClear();
    await backend.upsert([record(3, '', 'user')]); // r3 again, with a new vector
    expect(codesInserts().some((sql) => sql.startsWith('INSERT OR REPLACE'))).toBe(true);
    prepare.mockRestore();
    await backend.close();
  });

  it('a codes row already at a new row’s rowid (an edit outside agentmem) is replaced, as before', async () => {
    const backend = new SqliteBackend({ path: join(dir, 'orphan.db') });
    await backend.init({ dimension: 16 });
    // Orphan rows at the rowids the next inserts take (1 and 2), in the middle of a chunk of 8.
    backend.database.exec(
      `INSERT INTO ${CODES_TABLE} (rowid, tenant, namespace, code, embedding) VALUES (2, 'x', 'y', zeroblob(4), zeroblob(64)), (5, 'x', 'y', zeroblob(4), zeroblob(64))`,
    );
    const records = Array.from({ length: 8 }, (_, i) => record(i, '', 'user'));
    await backend.upsert(records);
    const rows = backend.database
      .prepare(`SELECT rowid, tenant, namespace, embedding FROM ${CODES_TABLE} ORDER BY rowid`)
      .all() as { rowid: number; tenant: string; namespace: string; embedding: Buffer }[];
    expect(rows.map((r) => r.rowid)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    rows.forEach((row, i) => {
      expect([row.tenant, row.namespace]).toEqual(['', 'user']);
      expect(
        new Float32Array(row.embedding.buffer.slice(row.embedding.byteOffset, row.embedding.byteOffset + 64)),
      ).toEqual(records[i]!.vector);
    });
    await backend.close();
  });
});
