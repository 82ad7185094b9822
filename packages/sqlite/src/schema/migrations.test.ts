import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HashingEmbedder, MemoryStore, type RecordFilter, toStoredMemory } from '@agentmem/core';
import { FakeEmbedder, SemanticTestEmbedder } from '@agentmem/core/testing';
import Database from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteBackend } from '../backend';
import { compileFilter, SqlBuilder } from '../query';
import { FIXTURE_NOW, FIXTURE_QUERIES } from './fixtures/write-v12-fixtures';
import { APPLICATION_ID, MIGRATIONS, SCHEMA_VERSION } from './migrations';

const dir = mkdtempSync(join(tmpdir(), 'agentmem-sqlite-migrations-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// A frozen copy of the schema as version 1 shipped it (never derive it from MIGRATIONS).
const V1_SCHEMA = `
  CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
  CREATE TABLE records (
    rowid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, namespace TEXT NOT NULL, tenant TEXT NOT NULL,
    text TEXT NOT NULL, attributes BLOB NOT NULL, payload TEXT NOT NULL
  );
  CREATE INDEX records_scope ON records (tenant, namespace, id);
  CREATE VIRTUAL TABLE records_fts USING fts5(
    text, content = 'records', content_rowid = 'rowid', tokenize = 'porter unicode61 remove_diacritics 2'
  );
  CREATE TRIGGER records_fts_insert AFTER INSERT ON records WHEN new.text <> '' BEGIN
    INSERT INTO records_fts (rowid, text) VALUES (new.rowid, new.text);
  END;
  CREATE TRIGGER records_fts_delete AFTER DELETE ON records WHEN old.text <> '' BEGIN
    INSERT INTO records_fts (records_fts, rowid, text) VALUES ('delete', old.rowid, old.text);
  END;
  CREATE TRIGGER records_fts_update AFTER UPDATE OF text ON records WHEN old.text IS NOT new.text BEGIN
    INSERT INTO records_fts (records_fts, rowid, text) SELECT 'delete', old.rowid, old.text WHERE old.text <> '';
    INSERT INTO records_fts (rowid, text) SELECT new.rowid, new.text WHERE new.text <> '';
  END;
  CREATE VIRTUAL TABLE vectors USING vec0(
    tenant TEXT partition key, namespace TEXT partition key, embedding float[4] distance_metric=cosine, chunk_size=256
  );
`;

function writeV1Fixture(path: string) {
  const db = new Database(path);
  sqliteVec.load(db);
  db.pragma('journal_mode = WAL');
  db.exec(V1_SCHEMA);
  db.pragma(`application_id = ${APPLICATION_ID}`);
  db.pragma('user_version = 1');
  const insert = db.prepare(
    'INSERT INTO records (id, namespace, tenant, text, attributes, payload) VALUES (?, ?, ?, ?, jsonb(?), ?)',
  );
  const vector = db.prepare('INSERT INTO vectors (rowid, tenant, namespace, embedding) VALUES (?, ?, ?, ?)');
  const rows = [
    [
      'm1',
      'the release checklist lives in the wiki',
      { kind: 'memory', status: 'active', contentHash: 'h1' },
      [1, 0, 0, 0],
    ],
    [
      'm2',
      'alice reviews every database migration',
      { kind: 'memory', status: 'active', contentHash: 'h2' },
      [0, 1, 0, 0],
    ],
  ] as const;
  for (const [id, text, attributes, v] of rows) {
    const { lastInsertRowid } = insert.run(id, 'user', '', text, JSON.stringify(attributes), JSON.stringify({ id }));
    vector.run(BigInt(lastInsertRowid), '', 'user', new Float32Array(v));
  }
  db.prepare("INSERT INTO meta (key, value) VALUES ('embedder.id', 'fixture')").run();
  db.close();
}

describe('schema migrations', () => {
  it('are numbered 1..n in order', () => {
    expect(MIGRATIONS.map((m) => m.version)).toEqual(MIGRATIONS.map((_, i) => i + 1));
    expect(SCHEMA_VERSION).toBe(MIGRATIONS.length);
  });

  it('upgrade a version-1 file in place, keeping its records, vectors, keyword index and meta', async () => {
    const path = join(dir, 'v1.db');
    writeV1Fixture(path);
    const backend = new SqliteBackend({ path });
    try {
      const db = backend.database;
      expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
      const indexes = (
        db.prepare("SELECT name FROM sqlite_schema WHERE type = 'index'").all() as { name: string }[]
      ).map((r) => r.name);
      expect(indexes).toEqual(
        expect.arrayContaining(['records_kind_status', 'records_content_hash', 'records_memory_id', 'records_type']),
      );
      await backend.init({ dimension: 4 });
      expect(await backend.getMeta('embedder.id')).toBe('fixture');
      const [m2] = await backend.get(['m2']);
      expect(m2?.vector).toEqual(new Float32Array([0, 1, 0, 0]));
      const kw = await backend.search({ mode: 'keyword', text: 'database migration', filter: { tenant: '' }, k: 5 });
      expect(kw.map((h) => h.record.id)).toEqual(['m2']);
      const dense = await backend.search({
        mode: 'dense',
        vector: new Float32Array([1, 0, 0, 0]),
        filter: { tenant: '' },
        k: 1,
      });
      expect(dense[0]?.record.id).toBe('m1');
      // Step 5 copied every vector, with its sign-bit code, into the table the binary index loads; step 13
      // dropped the vec0 table, so that copy is the only one.
      const codes = db.prepare('SELECT rowid, embedding FROM vector_codes ORDER BY rowid').all() as {
        rowid: number;
        embedding: Buffer;
      }[];
      expect(codes.map((c) => [...new Float32Array(new Uint8Array(c.embedding).buffer)])).toEqual([
        [1, 0, 0, 0],
        [0, 1, 0, 0],
      ]);
      expect(db.prepare("SELECT name FROM sqlite_schema WHERE name LIKE 'vectors%'").all()).toEqual([]);
      const byHash = await backend.scan({ filter: { tenant: '', where: { kind: 'memory', contentHash: 'h1' } } });
      expect(byHash.records.map((r) => r.id)).toEqual(['m1']);
      // The lookups core makes on every write and history read use their own index, not a scope scan.
      const plan = (filter: RecordFilter, count = false) => {
        const b = new SqlBuilder();
        const where = compileFilter(filter, b).sql;
        const sql = count
          ? `EXPLAIN QUERY PLAN SELECT count(*) FROM records r WHERE ${where}`
          : `EXPLAIN QUERY PLAN SELECT id FROM records r WHERE ${where} ORDER BY r.id LIMIT 2`;
        return (db.prepare(sql).all(b.params) as { detail: string }[]).map((p) => p.detail).join(' ');
      };
      const scoped = { tenant: '', namespaces: ['user'] };
      expect(plan({ ...scoped, where: { kind: 'memory', contentHash: 'h1' } })).toMatch(/records_content_hash/);
      expect(plan({ ...scoped, where: { kind: 'memory', contentHash: { in: ['h1', 'h2'] } } })).toMatch(
        /records_content_hash/,
      );
      expect(plan({ ...scoped, where: { kind: 'memory', status: 'active' } }, true)).toMatch(
        /COVERING INDEX records_kind_status/,
      );
      expect(plan({ tenant: '', namespaces: ['_history'], where: { memoryId: 'm1' } })).toMatch(/records_memory_id/);
      // The copied columns of the upgraded records follow their attributes from here on.
      expect(await backend.patch([{ id: 'm1', attributes: { status: 'pruned' } }])).toBe(1);
      const active = await backend.scan({ filter: { tenant: '', where: { kind: 'memory', status: 'active' } } });
      expect(active.records.map((r) => r.id)).toEqual(['m2']);
      expect(await backend.count({ tenant: '', where: { status: 'pruned', contentHash: 'h1' } })).toBe(1);
    } finally {
      await backend.close();
    }
    const again = new SqliteBackend({ path }); // already current: opening again changes nothing
    try {
      expect(await again.count({ tenant: null })).toBe(2);
    } finally {
      await again.close();
    }
  });
});

/** A version-3 file as that build wrote it: shipped steps are never edited, so steps 1-3 are version 3. */
function writeV3Fixture(path: string) {
  const db = new Database(path);
  sqliteVec.load(db);
  db.pragma('journal_mode = WAL');
  for (const m of MIGRATIONS.filter((m) => m.version <= 3)) db.exec(m.sql);
  db.exec(V1_SCHEMA.slice(V1_SCHEMA.indexOf('CREATE VIRTUAL TABLE vectors')));
  db.pragma(`application_id = ${APPLICATION_ID}`);
  db.pragma('user_version = 3');
  const insert = db.prepare(
    `INSERT INTO records (id, namespace, tenant, text, attributes, payload, attr_kind, attr_status, attr_content_hash, attr_memory_id)
     VALUES (?, 'user', '', ?, jsonb(?), ?, ?, ?, ?, ?)`,
  );
  const created = Date.parse('2025-02-03T04:05:06Z');
  const memory = (id: string, text: string) => {
    const attributes = { kind: 'memory', status: 'active', contentHash: `h-${id}`, createdAt: created };
    const payload = { id, content: text, createdAt: new Date(created).toISOString() };
    const { lastInsertRowid } = insert.run(
      id,
      text,
      JSON.stringify(attributes),
      JSON.stringify(payload),
      'memory',
      'active',
      `h-${id}`,
      null,
    );
    db.prepare('INSERT INTO vectors (rowid, tenant, namespace, embedding) VALUES (?, ?, ?, ?)').run(
      BigInt(lastInsertRowid),
      '',
      'user',
      new Float32Array([1, 0, 0, 0]),
    );
  };
  memory('old1', 'the deploy checklist lives in the wiki');
  memory('old2', 'bob owns the billing service');
  insert.run(
    'hist1',
    '',
    JSON.stringify({ kind: 'history', memoryId: 'old1', at: created }),
    '{}',
    'history',
    null,
    null,
    'old1',
  );
  db.close();
}

describe('schema version 4', () => {
  it('upgrades a version-3 file: old memories get occurredAt = createdAt, the keyword index gains a context column', async () => {
    const path = join(dir, 'v3.db');
    writeV3Fixture(path);
    const backend = new SqliteBackend({ path });
    try {
      const db = backend.database;
      expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
      await backend.init({ dimension: 4 });
      const [old1] = await backend.get(['old1']);
      expect(old1?.attributes.occurredAt).toBe(Date.parse('2025-02-03T04:05:06Z'));
      expect(old1?.context).toBeUndefined();
      const [hist] = await backend.get(['hist1']);
      expect(hist?.attributes.occurredAt).toBeUndefined();
      // Old records are still found by keyword, and only they: history rows stay out of the index.
      const kw = await backend.search({ mode: 'keyword', text: 'billing service', filter: { tenant: '' }, k: 5 });
      expect(kw.map((h) => h.record.id)).toEqual(['old2']);
      // Time filters use the new column (and its index), for upgraded and new records alike.
      await backend.upsert([
        {
          id: 'new1',
          namespace: 'user',
          tenant: '',
          text: 'Yes, every Saturday',
          context: 'Do you still take the billing class?',
          attributes: { kind: 'memory', status: 'active', occurredAt: Date.parse('2023-05-08T00:00:00Z') },
          payload: { id: 'new1' },
        },
      ]);
      const range = await backend.scan({
        filter: { tenant: '', where: { occurredAt: { gte: Date.parse('2024-01-01T00:00:00Z') } } },
      });
      expect(range.records.map((r) => r.id)).toEqual(['old1', 'old2']);
      const plan = (
        db
          .prepare(
            'EXPLAIN QUERY PLAN SELECT id FROM records r WHERE r.attr_occurred_at >= ? AND r.attr_occurred_at < ?',
          )
          .all(0, 1) as { detail: string }[]
      )
        .map((p) => p.detail)
        .join(' ');
      expect(plan).toMatch(/records_occurred_at/);
      // A context match ranks below a text match, and leaves the index with the record.
      const billing = await backend.search({ mode: 'keyword', text: 'billing', filter: { tenant: '' }, k: 5 });
      expect(billing.map((h) => h.record.id)).toEqual(['old2', 'new1']);
      expect(await backend.delete(['new1'])).toBe(1);
      const gone = await backend.search({ mode: 'keyword', text: 'saturday billing', filter: { tenant: '' }, k: 5 });
      expect(gone.map((h) => h.record.id)).toEqual(['old2']);
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      await backend.close();
    }
  });
});

/** A version-6 file as that build wrote it: steps 1-6, a vector table, records with their FTS5 entries and codes. */
function writeV6Fixture(path: string) {
  const db = new Database(path);
  sqliteVec.load(db);
  db.pragma('journal_mode = WAL');
  db.exec(V1_SCHEMA.slice(V1_SCHEMA.indexOf('CREATE VIRTUAL TABLE vectors')));
  for (const m of MIGRATIONS.filter((m) => m.version <= 6)) {
    db.exec(m.sql);
    m.apply?.(db);
  }
  db.pragma(`application_id = ${APPLICATION_ID}`);
  db.pragma('user_version = 6');
  const rows = [
    ['m1', 'the deploy checklist lives in the wiki', [1, 0, 0, 0]],
    ['m2', 'bob owns the billing service', [0, 1, 0, 0]],
    ['m3', 'carol rotates the billing keys', [0, 0, 1, 0]],
  ] as const;
  for (const [id, text, v] of rows) {
    const { lastInsertRowid } = db
      .prepare(
        `INSERT INTO records (id, namespace, tenant, text, attributes, payload, attr_kind, attr_status)
         VALUES (?, 'user', '', ?, jsonb(?), ?, 'memory', 'active')`,
      )
      .run(id, text, JSON.stringify({ kind: 'memory', status: 'active' }), JSON.stringify({ id }));
    // Version 6 wrote the keyword entries itself (no insert trigger).
    db.prepare('INSERT INTO records_fts (rowid, text, context) VALUES (?, ?, ?)').run(lastInsertRowid, text, '');
    db.prepare('INSERT INTO vectors (rowid, tenant, namespace, embedding) VALUES (?, ?, ?, ?)').run(
      BigInt(lastInsertRowid),
      '',
      'user',
      new Float32Array(v),
    );
  }
  db.exec(
    "INSERT INTO vector_codes (rowid, tenant, namespace, code, embedding) SELECT rowid, tenant, namespace, x'00', embedding FROM vectors",
  );
  db.exec(`INSERT INTO records (id, namespace, tenant, text, attributes, payload, attr_kind, attr_memory_id)
    VALUES ('h1', '_history', '', '', jsonb('{"kind":"history","memoryId":"m1"}'), '{}', 'history', 'm1')`);
  db.close();
}

describe('schema version 7', () => {
  it('upgrades a version-6 file: the FTS5 table and its triggers are gone, every record is still found and changeable', async () => {
    const path = join(dir, 'v6.db');
    writeV6Fixture(path);
    const backend = new SqliteBackend({ path });
    try {
      const db = backend.database;
      expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
      const fts = db.prepare("SELECT name FROM sqlite_schema WHERE name LIKE 'records_fts%'").all();
      expect(fts).toEqual([]);
      expect(db.pragma('page_size', { simple: true })).toBe(4096); // a migration keeps the file's page size
      await backend.init({ dimension: 4 });
      expect(await backend.count({ tenant: null })).toBe(4);
      const kw = await backend.search({ mode: 'keyword', text: 'billing', filter: { tenant: '' }, k: 5 });
      expect(kw.map((h) => h.record.id).sort()).toEqual(['m2', 'm3']);
      const dense = await backend.search({
        mode: 'dense',
        vector: new Float32Array([0, 0, 1, 0]),
        filter: { tenant: '' },
        k: 1,
      });
      expect(dense[0]?.record.id).toBe('m3');
      // Text changes and deletes fired the dropped triggers: they now only touch records and vectors.
      await backend.upsert([
        {
          id: 'm1',
          namespace: 'user',
          tenant: '',
          text: 'the billing runbook',
          attributes: { kind: 'memory' },
          payload: {},
        },
      ]);
      expect(await backend.delete(['m3'])).toBe(1);
      const after = await backend.search({ mode: 'keyword', text: 'billing', filter: { tenant: '' }, k: 5 });
      expect(after.map((h) => h.record.id).sort()).toEqual(['m1', 'm2']);
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      await backend.close();
    }
    const again = new SqliteBackend({ path }); // already current: opening again changes nothing
    try {
      expect(await again.count({ tenant: null })).toBe(3);
      const kw = await again.search({ mode: 'keyword', text: 'billing', filter: { tenant: '' }, k: 5 });
      expect(kw.map((h) => h.record.id).sort()).toEqual(['m1', 'm2']);
    } finally {
      await again.close();
    }
  });
});

describe('schema version 12', () => {
  it('upgrades a version-11 file once: its eager history rows read as before, and changes add to them', async () => {
    const path = join(dir, 'v11.db');
    const now = () => Date.parse('2026-02-03T04:05:06Z');
    // What a version-11 release wrote: a create row per memory (the eager path, which import still takes).
    const old = await MemoryStore.open({ backend: new SqliteBackend({ path }), embedder: new FakeEmbedder(), now });
    const memory = toStoredMemory(
      { content: 'The deploy checklist lives in the wiki', type: 'project' },
      { now: new Date(now()).toISOString(), tenant: '', branch: 'main' },
    );
    const [vector] = await old.embedDocuments([memory.content]);
    await old.writeMemories([{ memory, vector: vector! }], 'create');
    const before = await old.history(memory.id);
    await old.close();
    const raw = new Database(path);
    raw.pragma('user_version = 11');
    raw.close();

    const store = await MemoryStore.open({ backend: new SqliteBackend({ path }), embedder: new FakeEmbedder(), now });
    try {
      const db = (store.backend as SqliteBackend).database;
      expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
      expect(await store.history(memory.id)).toEqual(before);
      await store.update(memory.id, { importance: 0.9 });
      const after = await store.history(memory.id);
      expect(after.map((h) => h.action)).toEqual(['create', 'update']);
      expect(after[0]).toEqual(before[0]); // the row, not a second (implied) create entry
      expect(db.prepare("SELECT count(*) FROM records WHERE attr_kind = 'history'").pluck().get()).toBe(2);
    } finally {
      await store.close();
    }
    const again = new Database(path); // already current: opening again changes nothing
    try {
      expect(again.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    } finally {
      again.close();
    }
  });
});

describe('schema version 13', () => {
  const fixtures = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');
  const embedders = {
    hashing: () => new HashingEmbedder({ dimension: 32 }),
    semantic: () => new SemanticTestEmbedder({ dimension: 32 }),
  };
  /** The vectors of a schema-12 file as its vec0 table holds them, by rowid. */
  function vec0Vectors(path: string): Map<number, Buffer> {
    const db = new Database(path, { readonly: true });
    sqliteVec.load(db);
    try {
      const rows = db.prepare('SELECT rowid, embedding FROM vectors').all() as { rowid: number; embedding: Buffer }[];
      return new Map(rows.map((r) => [r.rowid, r.embedding]));
    } finally {
      db.close();
    }
  }

  for (const name of ['hashing', 'semantic'] as const) {
    it(`upgrades a ${name} store written by schema 12 once: each vector kept once, the same recall results`, async () => {
      const path = join(dir, `${name}.v12.db`);
      copyFileSync(join(fixtures, `${name}.v12.db`), path);
      const before = vec0Vectors(path);
      expect(before.size).toBeGreaterThan(100);
      const want = JSON.parse(readFileSync(join(fixtures, `${name}.v12.json`), 'utf8')) as Record<
        string,
        { id: string; score: number }[]
      >;
      const open = (denseSearch: 'approximate' | 'exact') =>
        MemoryStore.open({
          backend: new SqliteBackend({ path, denseSearch }),
          embedder: embedders[name](),
          now: () => FIXTURE_NOW,
        });
      for (const mode of ['approximate', 'exact'] as const) {
        const store = await open(mode);
        try {
          const db = (store.backend as SqliteBackend).database;
          expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
          if (mode === 'approximate') {
            // The vec0 table and its shadow tables are gone; every vector it held is in vector_codes, once.
            expect(db.prepare("SELECT name FROM sqlite_schema WHERE name LIKE 'vectors%'").all()).toEqual([]);
            expect(db.prepare('SELECT dimension FROM vector_space').pluck().all()).toEqual([32]);
            const after = db.prepare('SELECT rowid, embedding FROM vector_codes').all() as {
              rowid: number;
              embedding: Buffer;
            }[];
            expect(new Map(after.map((r) => [r.rowid, r.embedding]))).toEqual(before);
          }
          for (const q of FIXTURE_QUERIES) {
            for (const recallMode of ['hybrid', 'dense'] as const) {
              const hits = await store.recall(q, { k: 8, mode: recallMode, reinforce: false });
              const got = hits.map((h) => ({ id: h.memory.id, score: h.score }));
              expect({ [`${mode} ${recallMode} ${q}`]: got }).toEqual({
                [`${mode} ${recallMode} ${q}`]: want[`${mode} ${recallMode} ${q}`],
              });
            }
          }
          // Writes after the upgrade: a new memory is found by exact and approximate search alike.
          if (mode === 'exact') {
            const added = await store.remember({ content: 'the tomato greenhouse needs a new heater', type: 'user' });
            const [top] = await store.recall('tomato greenhouse heater', { k: 1, mode: 'dense', reinforce: false });
            expect(top?.memory.id).toBe(added.id);
            expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
          }
        } finally {
          await store.close();
        }
      }
    });
  }

  it('copies a vector only vec0 held (a raw-SQL edit) instead of losing it, and drops the saved binary index', async () => {
    const path = join(dir, 'orphan.v12.db');
    copyFileSync(join(fixtures, 'semantic.v12.db'), path);
    const before = vec0Vectors(path);
    const raw = new Database(path);
    const [rowid] = [...before.keys()];
    raw.prepare('DELETE FROM vector_codes WHERE rowid = ?').run(rowid);
    raw.close();
    const backend = new SqliteBackend({ path });
    try {
      const db = backend.database;
      expect(db.prepare('SELECT embedding FROM vector_codes WHERE rowid = ?').pluck().get(rowid)).toEqual(
        before.get(rowid!),
      );
      expect(db.prepare('SELECT count(*) FROM vector_codes').pluck().get()).toBe(before.size);
      expect(db.prepare('SELECT count(*) FROM dense_snapshot').pluck().get()).toBe(0);
    } finally {
      await backend.close();
    }
  });
});
