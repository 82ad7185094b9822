import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BackendRecord, InMemoryBackend, type RecordFilter, type SearchRequest } from '@agentmem/core';
import { seededRandom } from '@agentmem/core/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SqliteBackend } from '../backend';

const dir = mkdtempSync(join(tmpdir(), 'agentmem-sqlite-keyword-'));
let n = 0;
const open: SqliteBackend[] = [];
/** A backend on a fresh file (or on `path`, a second connection). */
function backend(path = join(dir, `store-${n++}.db`)): SqliteBackend {
  const b = new SqliteBackend({ path });
  open.push(b);
  return b;
}

const WORDS = 'apple pie crust ferry zanzibar paris train the of deploy deployed café'.split(' ');

function randomRecords(count: number, seed: number): BackendRecord[] {
  const random = seededRandom(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)]!;
  const text = () => Array.from({ length: Math.floor(random() * 8) }, () => pick(WORDS)).join(' ');
  return Array.from({ length: count }, (_, i) => {
    const r: BackendRecord = {
      id: `r${String((i * 7919) % count).padStart(4, '0')}`,
      tenant: pick(['a', 'b']),
      namespace: pick(['n1', 'n2']),
      text: text(),
      attributes: {
        kind: pick(['memory', 'history']),
        status: pick(['active', 'active', 'superseded']),
        occurredAt: Math.floor(random() * 100),
        contentHash: pick(['h1', 'h2']),
      },
      payload: {},
    };
    if (random() < 0.4) r.context = text();
    return r;
  });
}

const FILTERS: RecordFilter[] = [
  { tenant: 'a' },
  { tenant: null },
  { tenant: 'b', namespaces: ['n2'] },
  { tenant: 'a', namespaces: ['n1', 'n2'], where: { kind: 'memory', status: 'active' } },
  { tenant: 'a', where: { kind: 'memory', status: { in: ['active', 'superseded'] }, occurredAt: { gte: 20, lt: 70 } } },
  { tenant: 'b', where: { contentHash: 'h1', status: { ne: 'superseded' } } },
];
const QUERIES = ['apple pie', 'the ferry to Zanzibar', 'deploying trains', 'cafe crust', 'of the'];

/** Hits of both backends for the same request, as (id, score). */
async function both(sqlite: SqliteBackend, memory: InMemoryBackend, request: SearchRequest) {
  const shape = (hits: { record: BackendRecord; score: number }[]) =>
    hits.map((h) => ({ id: h.record.id, score: h.score }));
  return { sqlite: shape(await sqlite.search(request)), memory: shape(await memory.search(request)) };
}

async function expectSameAsInMemory(sqlite: SqliteBackend, records: readonly BackendRecord[]) {
  const memory = new InMemoryBackend();
  await memory.upsert(records);
  for (const filter of FILTERS) {
    for (const text of QUERIES) {
      for (const k of [1, 5, 50]) {
        const { sqlite: s, memory: m } = await both(sqlite, memory, { mode: 'keyword', text, filter, k });
        expect(s.map((h) => h.id)).toEqual(m.map((h) => h.id));
        s.forEach((h, i) => {
          expect(h.score).toBeCloseTo(m[i]!.score, 9);
        });
      }
    }
  }
}

afterEach(async () => {
  for (const b of open.splice(0)) await b.close();
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('keyword search over the in-process index', () => {
  let records: BackendRecord[];
  beforeAll(() => {
    records = randomRecords(600, 3);
  });

  it('ranks exactly as the in-memory backend: BM25F over what the filter admits, ties by id', async () => {
    const sqlite = backend();
    await sqlite.upsert(records);
    await expectSameAsInMemory(sqlite, records);
  });

  it('follows this connection’s updates, patches and deletes, and another connection’s commits', async () => {
    const path = join(dir, 'shared.db');
    const writer = backend(path);
    const reader = backend(path);
    await writer.upsert(records);
    await expectSameAsInMemory(reader, records); // loads the index from the file
    const current = new Map(records.map((r) => [r.id, r]));
    // Rewrite some texts, move some records, supersede some, delete some: through both connections.
    const changed = records
      .slice(0, 60)
      .map((r, i) => ({ ...r, text: `${r.text} apple ferry ${i}`, tenant: i % 2 ? 'a' : 'b' }));
    await writer.upsert(changed);
    for (const r of changed) current.set(r.id, r);
    await expectSameAsInMemory(reader, [...current.values()]);
    const patched = records.slice(60, 120).map((r) => r.id);
    await reader.patch(patched.map((id) => ({ id, attributes: { status: 'superseded' } })));
    for (const id of patched) {
      const r = current.get(id)!;
      current.set(id, { ...r, attributes: { ...r.attributes, status: 'superseded' } });
    }
    await expectSameAsInMemory(reader, [...current.values()]);
    const deleted = records.slice(120, 160).map((r) => r.id);
    await reader.delete(deleted.slice(20));
    for (const id of deleted.slice(20)) current.delete(id);
    await expectSameAsInMemory(reader, [...current.values()]);
    await writer.delete(deleted.slice(0, 20));
    for (const id of deleted) current.delete(id);
    await expectSameAsInMemory(reader, [...current.values()]);
    await expectSameAsInMemory(writer, [...current.values()]);
  });

  it('sees its own uncommitted writes inside a transaction and forgets them when it rolls back', async () => {
    const sqlite = backend();
    await sqlite.upsert(records);
    const filter = { tenant: 'a' };
    const search = async () =>
      (await sqlite.search({ mode: 'keyword', text: 'quokka', filter, k: 10 })).map((h) => h.record.id);
    const before = await sqlite.search({ mode: 'keyword', text: 'apple', filter, k: 5 });
    const quokka = (id: string): BackendRecord => ({ ...records[0]!, id, tenant: 'a', text: 'a quokka' });
    await expect(
      sqlite.transaction(async () => {
        await sqlite.upsert([quokka('q1')]);
        await sqlite.delete([before[0]!.record.id]);
        expect(await search()).toEqual(['q1']);
        await sqlite
          .transaction(async () => {
            await sqlite.upsert([quokka('q2')]);
            expect(await search()).toEqual(['q1', 'q2']);
            throw new Error('inner');
          })
          .catch(() => undefined);
        expect(await search()).toEqual(['q1']);
        throw new Error('outer');
      }),
    ).rejects.toThrow('outer');
    expect(await search()).toEqual([]);
    expect(await sqlite.search({ mode: 'keyword', text: 'apple', filter, k: 5 })).toEqual(before);
  });

  it('loaded inside a transaction that rolls back, it does not keep that transaction’s rows', async () => {
    const path = join(dir, 'late.db');
    const first = backend(path);
    await first.upsert(records);
    await first.close();
    const sqlite = backend(path);
    await sqlite
      .transaction(async () => {
        await sqlite.upsert([{ ...records[0]!, id: 'q1', tenant: 'a', text: 'quokka' }]);
        expect(await sqlite.search({ mode: 'keyword', text: 'quokka', filter: { tenant: 'a' }, k: 5 })).toHaveLength(1);
        throw new Error('undo');
      })
      .catch(() => undefined);
    expect(await sqlite.search({ mode: 'keyword', text: 'quokka', filter: { tenant: 'a' }, k: 5 })).toEqual([]);
  });
});
