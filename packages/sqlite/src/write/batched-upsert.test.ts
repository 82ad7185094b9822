import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BackendRecord } from '@agentmem/core';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteBackend } from '../backend';

const dir = mkdtempSync(join(tmpdir(), 'agentmem-sqlite-batch-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

/** A 4-dim unit vector pointing mostly along axis i % 4, distinct per i. */
function vector(i: number): Float32Array {
  const v = new Float32Array(4).fill(0.01 * ((i % 97) + 1));
  v[i % 4] = 1;
  return v;
}

function record(i: number, text = `record ${i} mentions word${i}`): BackendRecord {
  return {
    id: `r${i}`,
    namespace: 'user',
    tenant: '',
    text,
    attributes: { kind: 'memory', status: 'active', n: i },
    payload: { i },
    vector: vector(i),
  };
}

async function open(): Promise<SqliteBackend> {
  const backend = new SqliteBackend({ path: join(dir, `batch-${n++}.db`), denseSearch: 'exact' });
  await backend.init({ dimension: 4 });
  return backend;
}

function integrity(backend: SqliteBackend): void {
  const db = backend.database;
  expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
}

describe('SqliteBackend upsert in multi-row statements', () => {
  it('gives every record of a large batch its own keyword entry, vector and attributes (rowids matched)', async () => {
    const backend = await open();
    try {
      // 301 = 2 x 128 + 32 + 8 + 5 x 1: every statement size, and the history-like rows without text stay unindexed.
      const batch = Array.from({ length: 301 }, (_, i) => record(i));
      batch.push({ ...record(1000, ''), vector: undefined });
      await backend.upsert(batch);
      for (const i of [0, 127, 128, 255, 256, 287, 295, 300]) {
        const hits = await backend.search({ mode: 'keyword', text: `word${i}`, filter: { tenant: '' }, k: 3 });
        expect(hits.map((h) => h.record.id)).toEqual([`r${i}`]);
        const [got] = await backend.get([`r${i}`]);
        expect(got?.attributes.n).toBe(i);
        expect(got?.payload).toEqual({ i });
        expect([...got!.vector!]).toEqual([...vector(i)]);
      }
      const db = backend.database;
      expect((db.prepare('SELECT count(*) AS n FROM vector_codes').get() as { n: number }).n).toBe(301);
      integrity(backend);
    } finally {
      await backend.close();
    }
  });

  it('stores each row its own scope, kind, status, type and context, whether a chunk shares them or not', async () => {
    const backend = await open();
    try {
      // Chunks of 128, 128, 32, 8 and 1 rows: the first shares every column; the second varies the
      // kind and type (not the context); the third the context, namespace and status (not the type);
      // the fourth the tenant and type (not the kind); booleans, nulls and numbers as column values,
      // which the last five rows (a statement each: every column shared) bind as named parameters.
      const values = (i: number) => {
        const chunk = i < 128 ? 0 : i < 256 ? 1 : i < 288 ? 2 : 3;
        if (chunk === 0)
          return { namespace: 'user', tenant: '', kind: 'memory', status: 'active', type: 'fact', context: '' };
        if (chunk === 1)
          return {
            namespace: 'user',
            tenant: '',
            kind: i % 4 === 1 ? 'note' : 'memory',
            status: 'active',
            type: i % 3 === 0 ? 'event' : 'fact',
            context: '',
          };
        if (chunk === 2)
          return {
            namespace: `ns${i % 2}`,
            tenant: 't',
            kind: 'memory',
            status: i % 5 === 0 ? 'pruned' : 'active',
            type: 'fact',
            context: `c${i}`,
          };
        return {
          namespace: 'user',
          tenant: `t${i % 2}`,
          kind: i < 296 || i % 2 === 0,
          status: null,
          type: i % 7,
          context: '',
        };
      };
      const batch: BackendRecord[] = Array.from({ length: 301 }, (_, i) => {
        const v = values(i);
        const r: BackendRecord = {
          ...record(i),
          namespace: v.namespace,
          tenant: v.tenant,
          attributes: { kind: v.kind, status: v.status, type: v.type, n: i } as BackendRecord['attributes'],
        };
        if (v.context) r.context = v.context;
        return r;
      });
      await backend.upsert(batch);
      const got = await backend.get(batch.map((r) => r.id));
      expect(got.length).toBe(301);
      for (const r of got) {
        const i = r.attributes.n as number;
        const v = values(i);
        expect([
          r.namespace,
          r.tenant,
          r.context ?? '',
          r.attributes.kind,
          r.attributes.status,
          r.attributes.type,
        ]).toEqual([v.namespace, v.tenant, v.context, v.kind, v.status, v.type]);
      }
      // The indexed columns hold each row's own value (filters read them, not the JSON attributes).
      const db = backend.database;
      const columns = db
        .prepare('SELECT id, namespace, tenant, context, attr_kind, attr_status, attr_type FROM records')
        .raw()
        .all() as [string, string, string, string, unknown, unknown, unknown][];
      for (const [id, namespace, tenant, context, kind, status, type] of columns) {
        const v = values(Number(id.slice(1)));
        const column = (x: unknown) => (typeof x === 'boolean' ? Number(x) : x);
        expect([namespace, tenant, context, kind, status, type]).toEqual([
          v.namespace,
          v.tenant,
          v.context,
          column(v.kind),
          column(v.status),
          column(v.type),
        ]);
      }
      const pruned = await backend.scan({
        filter: { tenant: 't', namespaces: ['ns0', 'ns1'], where: { status: 'pruned' } },
      });
      expect(pruned.records.map((r) => r.id).sort()).toEqual(['r260', 'r265', 'r270', 'r275', 'r280', 'r285']);
      integrity(backend);
    } finally {
      await backend.close();
    }
  });

  it('applies an id given twice in one batch, or already stored, in order: the last write wins everywhere', async () => {
    const backend = await open();
    try {
      await backend.upsert([record(1), record(2)]);
      await backend.upsert([
        record(3),
        record(1, 'first rewrite mentions alpha'),
        record(4),
        { ...record(3, 'second version mentions gamma'), vector: vector(7) },
        record(1, 'final rewrite mentions omega'),
      ]);
      const ids = async (text: string) =>
        (await backend.search({ mode: 'keyword', text, filter: { tenant: '' }, k: 5 })).map((h) => h.record.id);
      expect(await ids('omega')).toEqual(['r1']);
      expect(await ids('alpha')).toEqual([]);
      expect(await ids('word1')).toEqual([]);
      expect(await ids('gamma')).toEqual(['r3']);
      expect(await ids('word3')).toEqual([]);
      expect(await ids('word4')).toEqual(['r4']);
      const [r3] = await backend.get(['r3']);
      expect([...r3!.vector!]).toEqual([...vector(7)]);
      expect(await backend.count({ tenant: '' })).toBe(4);
      const dense = await backend.search({ mode: 'dense', vector: vector(7), filter: { tenant: '' }, k: 1 });
      expect(dense[0]?.record.id).toBe('r3');
      integrity(backend);
    } finally {
      await backend.close();
    }
  });

  it('leaves nothing of a batch behind when the transaction around it fails', async () => {
    const backend = await open();
    try {
      await backend.upsert([record(1)]);
      await expect(
        backend.transaction(async () => {
          await backend.upsert(Array.from({ length: 200 }, (_, i) => record(i + 10)));
          throw new Error('caller fails after the write');
        }),
      ).rejects.toThrow('caller fails');
      expect(await backend.count({ tenant: '' })).toBe(1);
      const hits = await backend.search({ mode: 'keyword', text: 'word15', filter: { tenant: '' }, k: 3 });
      expect(hits).toEqual([]);
      const db = backend.database;
      expect((db.prepare('SELECT count(*) AS n FROM vector_codes').get() as { n: number }).n).toBe(1);
      integrity(backend);
      // The same ids can be written afterwards (no half-written index entries in the way).
      await backend.upsert([record(15)]);
      const again = await backend.search({ mode: 'keyword', text: 'word15', filter: { tenant: '' }, k: 3 });
      expect(again.map((h) => h.record.id)).toEqual(['r15']);
    } finally {
      await backend.close();
    }
  });

  it('writes nothing of a batch whose record fails to encode after earlier slices went in', async () => {
    const backend = await open();
    try {
      await backend.upsert([record(1)]);
      // New records are encoded and inserted 512 at a time: record 1,200 fails in the third slice.
      const batch = Array.from({ length: 1300 }, (_, i) => record(i + 10));
      batch[1200] = { ...batch[1200]!, payload: { big: 1n } as unknown as BackendRecord['payload'] };
      await expect(backend.upsert(batch)).rejects.toThrow(/BigInt/);
      expect(await backend.count({ tenant: '' })).toBe(1);
      const db = backend.database;
      expect((db.prepare('SELECT count(*) AS n FROM vector_codes').get() as { n: number }).n).toBe(1);
      const dense = await backend.search({ mode: 'dense', vector: vector(20), filter: { tenant: '' }, k: 3 });
      expect(dense.map((h) => h.record.id)).toEqual(['r1']);
      integrity(backend);
      batch[1200] = record(1210);
      await backend.upsert(batch);
      expect(await backend.count({ tenant: '' })).toBe(1301);
    } finally {
      await backend.close();
    }
  });
  it('refuses a batch with a record it cannot write, naming the record and its first fault, and writes none of it', async () => {
    const backend = await open();
    try {
      const faults: [Record<string, unknown>, RegExp][] = [
        [{ namespace: 7 }, /Record r1005: namespace must be a string\./],
        [{ tenant: null }, /Record r1005: tenant must be a string\./],
        [{ text: undefined }, /Record r1005: text must be a string\./],
        [{ namespace: 1, text: 2 }, /Record r1005: namespace must be a string\./],
        [{ vector: [1, 0, 0, 0] }, /Record r1005: vector must be a Float32Array\./],
        [{ vector: new Float32Array(3) }, /3 dimensions/],
      ];
      for (const [fault, message] of faults) {
        const batch = Array.from({ length: 10 }, (_, i) => record(i + 1000));
        batch[5] = { ...batch[5]!, ...fault } as BackendRecord;
        await expect(backend.upsert(batch)).rejects.toThrow(message);
        expect(await backend.count({ tenant: '' })).toBe(0);
      }
    } finally {
      await backend.close();
    }
  });
});
