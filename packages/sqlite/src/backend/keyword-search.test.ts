import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BackendRecord } from '@agentmem/core';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteBackend } from './sqlite-backend';

const dir = mkdtempSync(join(tmpdir(), 'agentmem-sqlite-keyword-'));
const path = join(dir, 'store.db');
let backend: SqliteBackend;

const record = (id: string, tenant: string, namespace: string, text: string): BackendRecord => ({
  id,
  namespace,
  tenant,
  text,
  attributes: {},
  payload: {},
});

/** What ranking every match, then filtering, returns: the order the FTS5-first search must keep. */
function reference(text: string, tenant: string, namespace: string, k: number): { id: string; score: number }[] {
  const db = new Database(path, { readonly: true });
  try {
    return db
      .prepare(
        'SELECT r.id AS id, -bm25(records_fts) AS score FROM records_fts JOIN records r ON r.rowid = records_fts.rowid ' +
          'WHERE records_fts MATCH ? AND r.tenant = ? AND r.namespace = ? ORDER BY bm25(records_fts), r.id LIMIT ?',
      )
      .all(text, tenant, namespace, k) as { id: string; score: number }[];
  } finally {
    db.close();
  }
}

beforeAll(async () => {
  backend = new SqliteBackend({ path });
  const records: BackendRecord[] = [];
  // The best-ranked matches belong to another tenant and to another namespace of the caller's.
  for (let i = 0; i < 200; i++) records.push(record(`o${String(i).padStart(3, '0')}`, 'other', 'ns', 'apple'));
  for (let i = 0; i < 100; i++) records.push(record(`n${String(i).padStart(3, '0')}`, 'me', 'elsewhere', 'apple'));
  // The caller's rows tie on bm25 and are written in reverse id order, so rowid order is not id order.
  for (let i = 59; i >= 0; i--) records.push(record(`m${String(i).padStart(3, '0')}`, 'me', 'ns', 'apple pie'));
  for (let i = 0; i < 10; i++) {
    records.push(record(`z${String(i).padStart(3, '0')}`, 'me', 'ns', `apple pie with a crust and ${i} more words`));
  }
  await backend.upsert(records);
});

afterAll(async () => {
  await backend.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('keyword search ranked inside FTS5', () => {
  it("returns k of the caller's rows when the top matches belong to other tenants and namespaces", async () => {
    const hits = await backend.search({
      mode: 'keyword',
      text: 'apple',
      filter: { tenant: 'me', namespaces: ['ns'] },
      k: 65,
    });
    expect(hits).toHaveLength(65);
    expect(hits.every((h) => h.record.tenant === 'me' && h.record.namespace === 'ns')).toBe(true);
    expect(hits.map((h) => ({ id: h.record.id, score: h.score }))).toEqual(reference('"apple"', 'me', 'ns', 65));
  });

  it('keeps the bm25-then-id order when tied matches straddle the candidate pool', async () => {
    for (const k of [1, 5, 30, 70]) {
      const hits = await backend.search({ mode: 'keyword', text: 'pie', filter: { tenant: 'me', namespaces: ['ns'] }, k });
      expect(hits.map((h) => ({ id: h.record.id, score: h.score }))).toEqual(reference('"pie"', 'me', 'ns', k));
    }
    const first = await backend.search({ mode: 'keyword', text: 'pie', filter: { tenant: 'me' }, k: 5 });
    expect(first.map((h) => h.record.id)).toEqual(['m000', 'm001', 'm002', 'm003', 'm004']);
  });

  it('returns every match when fewer than k exist', async () => {
    const hits = await backend.search({ mode: 'keyword', text: 'crust', filter: { tenant: 'me' }, k: 50 });
    expect(hits.map((h) => h.record.id)).toEqual(reference('"crust"', 'me', 'ns', 50).map((r) => r.id));
    expect(hits).toHaveLength(10);
  });
});
