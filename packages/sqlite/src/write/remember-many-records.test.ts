import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemoryBackend, type MemoryBackend, type MemoryInput, MemoryStore } from '@agentmem/core';
import { FakeEmbedder } from '@agentmem/core/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteBackend } from '../backend';
import { encodeRecord, type PayloadTexts } from '../records';

const dir = mkdtempSync(join(tmpdir(), 'agentmem-remember-many-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

const inputs: MemoryInput[] = [
  { content: 'Alice moved to Lisbon in May 2023', type: 'user', tags: ['move'], metadata: { speaker: 'Bob', n: 1 } },
  { content: 'The API runs on port 8080', type: 'project', importance: 0.9, context: 'deploy notes' },
  { content: 'the api runs on PORT 8080  ', type: 'project' }, // the same memory as the one before
  {
    content: 'Prefers "short" answers\\nalways',
    type: 'feedback',
    id: 'mem_given',
    occurredAt: '2024-02-03T04:05:06Z',
  },
  { content: 'Meeting with Carol about the Q3 budget', type: 'reference', metadata: { nested: { a: [1, 'x'] } } },
];

const backends: [string, () => MemoryBackend][] = [
  ['in-memory', () => new InMemoryBackend()],
  ['SQLite', () => new SqliteBackend({ path: join(dir, `store-${n++}.db`) })],
];

describe.each(backends)('rememberMany on %s', (_, backend) => {
  it('stores the same memories and history as one remember() per input', async () => {
    const now = () => Date.parse('2026-03-04T05:06:07.089Z');
    const batch = new MemoryStore({ backend: backend(), embedder: new FakeEmbedder(), now, agentId: 'a1' });
    const single = new MemoryStore({ backend: backend(), embedder: new FakeEmbedder(), now, agentId: 'a1' });
    try {
      const many = await batch.rememberMany(inputs);
      const one = [];
      for (const input of inputs) one.push(await single.remember(input));
      expect(many).toEqual(one);
      expect(many[2]).toBe(many[1]);
      for (const m of many) {
        expect(await batch.get(m.id)).toEqual(await single.get(m.id));
        const withoutIds = async (store: MemoryStore) =>
          (await store.history(m.id)).map(({ id, ...entry }) => ({ hasId: id.startsWith('hist_'), ...entry }));
        const history = await withoutIds(batch);
        expect(history).toHaveLength(1);
        expect(history).toEqual(await withoutIds(single));
        expect(history[0]).toMatchObject({ action: 'create', memory: await batch.get(m.id), hasId: true });
      }
      // What the caller gets back is its own: changing it changes nothing stored.
      many[0]!.metadata.speaker = 'changed';
      many[0]!.tags.push('changed');
      expect((await batch.get(many[0]!.id))?.metadata.speaker).toBe('Bob');
      expect((await batch.history(many[0]!.id))[0]?.memory?.tags).toEqual(['move']);
      if (batch.backend instanceof SqliteBackend) {
        // No history rows: each create entry is implied by its memory's row (marked) until it changes.
        const db = batch.backend.database;
        expect(db.prepare("SELECT count(*) FROM records WHERE attr_kind = 'history'").pluck().get()).toBe(0);
        const rows = db
          .prepare(
            "SELECT payload, attributes ->> '$.historyPending' AS pending FROM records WHERE attr_kind = 'memory'",
          )
          .all() as { payload: string; pending: number }[];
        expect(rows.map((r) => r.pending)).toEqual([1, 1, 1, 1]);
        // The memory row's JSON is what JSON.stringify writes.
        for (const { payload } of rows) expect(payload).toBe(JSON.stringify(JSON.parse(payload)));
      }
    } finally {
      await batch.close();
      await single.close();
    }
  });
});

/** A FakeEmbedder that runs `meanwhile` once, on its first document call (while rememberMany embeds). */
class EmbedderWithInterleavedWrite extends FakeEmbedder {
  meanwhile: (() => Promise<unknown>) | undefined;
  override async embed(texts: readonly string[], options: Parameters<FakeEmbedder['embed']>[1]) {
    const run = this.meanwhile;
    this.meanwhile = undefined;
    if (run && options.purpose === 'document') await run();
    return super.embed(texts, options);
  }
}

describe('rememberMany when another write lands between its duplicate check and its transaction', () => {
  const content = ['Dana adopted a cat named Miso', 'The staging database moved to eu-west-1'];
  // The same file through a second connection (another process, as far as SQLite tells), and through
  // the same backend (another call of this process): either way the write lands while the batch embeds.
  it.each(['another connection', 'the same backend'])(
    'returns the memory written meanwhile through %s, and creates none twice',
    async (through) => {
      const path = join(dir, `interleaved-${n++}.db`);
      const embedder = new EmbedderWithInterleavedWrite();
      const store = new MemoryStore({ backend: new SqliteBackend({ path }), embedder });
      const other =
        through === 'the same backend'
          ? new MemoryStore({ backend: store.backend, embedder: new FakeEmbedder() })
          : new MemoryStore({ backend: new SqliteBackend({ path }), embedder: new FakeEmbedder() });
      try {
        await store.init();
        await other.init();
        let written: { id: string } | undefined;
        embedder.meanwhile = async () => {
          written = await other.remember({ content: content[1]!, type: 'project', tags: ['meanwhile'] });
        };
        const [first, second] = await store.rememberMany(content.map((c) => ({ content: c, type: 'project' })));
        // The stored memory, not this batch's own (which has the same derived id but no tag).
        expect(second).toEqual(written);
        expect((await store.get(second!.id))?.tags).toEqual(['meanwhile']);
        expect(first!.id).not.toBe(written!.id);
        const db = (store.backend as SqliteBackend).database;
        expect(db.prepare("SELECT count(*) FROM records WHERE attr_kind = 'memory'").pluck().get()).toBe(2);
      } finally {
        if (other.backend !== store.backend) await other.close();
        await store.close();
      }
    },
  );

  it("the backend's write mark stays without a write and moves with one, this connection's or another's", async () => {
    const path = join(dir, `mark-${n++}.db`);
    const a = new SqliteBackend({ path });
    const b = new SqliteBackend({ path });
    try {
      await a.init({ dimension: 3 });
      await b.init({ dimension: 3 });
      const record = (id: string) => ({ id, namespace: 'n', tenant: '', text: id, attributes: {}, payload: {} });
      const first = await a.writeMark();
      await a.get(['x']);
      expect(await a.writeMark()).toBe(first);
      await a.upsert([record('x')]);
      const second = await a.writeMark();
      expect(second).not.toBe(first);
      await b.upsert([record('y')]);
      expect(await a.writeMark()).not.toBe(second);
      const third = await a.writeMark();
      await a.transaction(async () => {
        await a.delete(['x']);
        expect(await a.writeMark()).not.toBe(third);
      });
    } finally {
      await a.close();
      await b.close();
    }
  });
});

describe('encodeRecord with the payloads of a write', () => {
  it('writes the text JSON.stringify writes, whatever the payload holds', () => {
    const memory = { id: 'm', content: 'x "quoted"\n', tags: ['a'], metadata: { __proto__: 1 } };
    const record = (payload: object) => ({
      id: 'r',
      namespace: 'n',
      tenant: '',
      text: '',
      attributes: {},
      payload: payload as never,
    });
    const payloads: PayloadTexts = new Map();
    const cases: object[] = [
      memory,
      { id: 'h', at: 'now', memory, detail: undefined, n: 1.5, ok: true, none: null },
      { memory, other: { y: 1 } },
      { memory, list: [memory] },
      { memory, when: new Date(0) },
      { memory, own: { toJSON: (key: string) => key } },
      Object.assign(Object.create(null), { memory, s: 'x' }),
      { toJSON: () => ({ memory }) },
      memory,
    ];
    for (const payload of cases) expect(encodeRecord(record(payload), payloads).payload).toBe(JSON.stringify(payload));
    expect(() => encodeRecord(record({ memory, big: 1n }), payloads)).toThrow(TypeError);
  });
});
