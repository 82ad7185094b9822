import { encodeSigns } from '@agentmem/core';
import type Database from 'better-sqlite3';

/** One step of the schema, applied in order inside one write transaction. */
export interface Migration {
  /** The schema version after this step (`PRAGMA user_version`). */
  version: number;
  description: string;
  sql: string;
  /** Work that depends on what the file holds (the vector table exists only once init() ran), after `sql`. */
  apply?: (db: Database.Database) => void;
}

/** Name of the table of sign-bit codes and float vectors (schema step 5; since 13 the only copy of each vector). */
export const CODES_TABLE = 'vector_codes';

/** Name of the one-row table that holds the dimension of the file's vectors (schema 13), set by `init`. */
export const VECTOR_SPACE_TABLE = 'vector_space';

/**
 * The schema history. Never edit a shipped step: add a new one. The dimension
 * is only known at `init({ dimension })`, which writes it to `vector_space`
 * (before schema 13 it created the `vec0` table, `createVectorTableSql`).
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'records, meta and the FTS5 keyword index kept in sync by triggers',
    sql: `
      CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
      CREATE TABLE records (
        rowid INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        namespace TEXT NOT NULL,
        tenant TEXT NOT NULL,
        text TEXT NOT NULL,
        attributes BLOB NOT NULL,
        payload TEXT NOT NULL
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
    `,
  },
  {
    version: 2,
    description: 'indexes on the attributes core filters on (kind/status per scope, type, contentHash, memoryId)',
    sql: `
      -- Covers counts per scope and status (stats, recall filters) without reading rows.
      CREATE INDEX records_kind_status ON records (
        json_extract(attributes, '$.kind'), json_extract(attributes, '$.status'), tenant, namespace
      );
      CREATE INDEX records_type ON records (json_extract(attributes, '$.type'));
      CREATE INDEX records_content_hash ON records (json_extract(attributes, '$.contentHash'));
      CREATE INDEX records_memory_id ON records (json_extract(attributes, '$.memoryId'));
      -- Fixed planner statistics (rows per key prefix of each index), so that a content-hash or
      -- memory-id lookup uses its own index from the first query instead of scanning a whole scope.
      ANALYZE sqlite_schema;
      DELETE FROM sqlite_stat1 WHERE tbl = 'records';
      INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES
        ('records', 'sqlite_autoindex_records_1', '1000000 1'),
        ('records', 'records_scope', '1000000 100000 10000 1'),
        ('records', 'records_kind_status', '1000000 300000 100000 50000 10000'),
        ('records', 'records_type', '1000000 250000'),
        ('records', 'records_content_hash', '1000000 2'),
        ('records', 'records_memory_id', '1000000 5');
      ANALYZE sqlite_schema;
    `,
  },
  {
    version: 3,
    description: 'filtered attributes copied into their own columns, so a patch re-indexes only what it changes',
    sql: `
      -- An expression index on json_extract(attributes, ...) is rewritten on every change of
      -- attributes: pruning a memory (a status change) rewrote its contentHash, type and memoryId
      -- entries too, at random places of those indexes. Plain columns are only re-indexed when set.
      -- attributes stays complete; the backend writes these copies with it.
      ALTER TABLE records ADD COLUMN attr_kind;
      ALTER TABLE records ADD COLUMN attr_status;
      ALTER TABLE records ADD COLUMN attr_type;
      ALTER TABLE records ADD COLUMN attr_content_hash;
      ALTER TABLE records ADD COLUMN attr_memory_id;
      UPDATE records SET
        attr_kind = json_extract(attributes, '$.kind'),
        attr_status = json_extract(attributes, '$.status'),
        attr_type = json_extract(attributes, '$.type'),
        attr_content_hash = json_extract(attributes, '$.contentHash'),
        attr_memory_id = json_extract(attributes, '$.memoryId');
      DROP INDEX records_kind_status;
      DROP INDEX records_type;
      DROP INDEX records_content_hash;
      DROP INDEX records_memory_id;
      CREATE INDEX records_kind_status ON records (attr_kind, attr_status, tenant, namespace);
      -- Partial: history rows have no type or content hash, memories no memoryId (fewer entries to write).
      CREATE INDEX records_type ON records (attr_type) WHERE attr_type IS NOT NULL;
      CREATE INDEX records_content_hash ON records (attr_content_hash) WHERE attr_content_hash IS NOT NULL;
      CREATE INDEX records_memory_id ON records (attr_memory_id) WHERE attr_memory_id IS NOT NULL;
      DELETE FROM sqlite_stat1 WHERE tbl = 'records';
      INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES
        ('records', 'sqlite_autoindex_records_1', '1000000 1'),
        ('records', 'records_scope', '1000000 100000 10000 1'),
        ('records', 'records_kind_status', '1000000 300000 100000 50000 10000'),
        ('records', 'records_type', '1000000 250000'),
        ('records', 'records_content_hash', '1000000 2'),
        ('records', 'records_memory_id', '1000000 5');
      ANALYZE sqlite_schema;
    `,
  },
  {
    version: 4,
    description: 'event time (occurredAt) with its own column, and a context column in the keyword index',
    sql: `
      -- context: text that helps find a record (neighbouring turns, source) without being its content.
      -- FTS5 indexes it as a second column; keyword search weighs it below text (bm25() column weights).
      ALTER TABLE records ADD COLUMN context TEXT NOT NULL DEFAULT '';
      ALTER TABLE records ADD COLUMN attr_occurred_at;
      -- Memories written before event time existed happened when they were created.
      UPDATE records SET attributes = jsonb_set(attributes, '$.occurredAt', json_extract(attributes, '$.createdAt'))
        WHERE attr_kind = 'memory' AND json_extract(attributes, '$.occurredAt') IS NULL
          AND json_extract(attributes, '$.createdAt') IS NOT NULL;
      UPDATE records SET attr_occurred_at = json_extract(attributes, '$.occurredAt')
        WHERE json_extract(attributes, '$.occurredAt') IS NOT NULL;
      CREATE INDEX records_occurred_at ON records (attr_occurred_at) WHERE attr_occurred_at IS NOT NULL;
      DROP TRIGGER records_fts_insert;
      DROP TRIGGER records_fts_delete;
      DROP TRIGGER records_fts_update;
      DROP TABLE records_fts;
      CREATE VIRTUAL TABLE records_fts USING fts5(
        text, context, content = 'records', content_rowid = 'rowid',
        tokenize = 'porter unicode61 remove_diacritics 2'
      );
      -- Rows without any text (history) stay out of the index, as before: they would count in bm25's averages.
      INSERT INTO records_fts (rowid, text, context)
        SELECT rowid, text, context FROM records WHERE text <> '' OR context <> '';
      CREATE TRIGGER records_fts_insert AFTER INSERT ON records WHEN new.text <> '' OR new.context <> '' BEGIN
        INSERT INTO records_fts (rowid, text, context) VALUES (new.rowid, new.text, new.context);
      END;
      CREATE TRIGGER records_fts_delete AFTER DELETE ON records WHEN old.text <> '' OR old.context <> '' BEGIN
        INSERT INTO records_fts (records_fts, rowid, text, context) VALUES ('delete', old.rowid, old.text, old.context);
      END;
      CREATE TRIGGER records_fts_update AFTER UPDATE OF text, context ON records
        WHEN old.text IS NOT new.text OR old.context IS NOT new.context BEGIN
        INSERT INTO records_fts (records_fts, rowid, text, context)
          SELECT 'delete', old.rowid, old.text, old.context WHERE old.text <> '' OR old.context <> '';
        INSERT INTO records_fts (rowid, text, context)
          SELECT new.rowid, new.text, new.context WHERE new.text <> '' OR new.context <> '';
      END;
      INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES ('records', 'records_occurred_at', '1000000 2');
      ANALYZE sqlite_schema;
    `,
  },
  {
    version: 5,
    description: 'sign-bit codes and a plain copy of every vector, for the binary index and its exact rescoring',
    sql: `
      -- Dense search loads the codes (48 bytes per 384-dim vector) into an in-process index, scans
      -- them by Hamming distance and rescores a candidate pool with the float vectors read here by
      -- rowid: reading a vector out of vec0 by rowid costs ~0.3 ms, a row of this table ~2 us.
      CREATE TABLE ${CODES_TABLE} (
        rowid INTEGER PRIMARY KEY,
        tenant TEXT NOT NULL,
        namespace TEXT NOT NULL,
        code BLOB NOT NULL,
        embedding BLOB NOT NULL
      );
    `,
    apply: (db) => {
      const vectors = db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?").get(VECTOR_TABLE);
      if (!vectors) return;
      copyVecRowsToCodes(db, '');
    },
  },
  {
    version: 6,
    description: 'the backend writes the keyword index of inserted records, one statement per batch',
    sql: `
      -- A write to a virtual table (FTS5) may abort its statement halfway, so every statement whose
      -- trigger wrote records_fts kept a statement journal: each page it changed was first copied to a
      -- temporary file (83k page copies for 20k records, 9x the pages the transaction committed).
      -- Inserts into records now fire no trigger and run with OR FAIL (no statement journal; the
      -- backend's savepoint keeps the batch atomic); the backend adds the batch to records_fts itself.
      -- Updates and deletes keep their triggers.
      DROP TRIGGER records_fts_insert;
    `,
  },
  {
    version: 7,
    description: 'the FTS5 table and its triggers dropped: keyword search uses the in-process index',
    sql: `
      -- No search has read records_fts since keyword search moved to the in-process BM25F index
      -- (built from records.text and records.context); keeping it up to date was ~10 us of every
      -- insert's commit and a third of the pages a batch wrote. Tools that want FTS5 build their own
      -- (docs/sqlite.md shows how).
      DROP TRIGGER IF EXISTS records_fts_delete;
      DROP TRIGGER IF EXISTS records_fts_update;
      DROP TABLE IF EXISTS records_fts;
    `,
  },
  {
    version: 8,
    description: 'logged changes (decay prunes) kept beside the records, merged in by views',
    sql: `
      -- patchLogged (what decay's prune does to tens of thousands of records at once) used to rewrite
      -- each record's row and insert a log record holding a copy of it: 57% of a store pruned rewrote
      -- nearly every page of records (~2 s at 100k). It now writes one narrow row per change here;
      -- reads go through the views below, which merge each change into its record (records_now) and
      -- show its log record (logged_records), as if both had been written. Any later write to either
      -- record first folds the change into real rows (the backend's fold).
      CREATE TABLE logged_batches (
        rowid INTEGER PRIMARY KEY,
        -- What the batch's patches set: attributes (JSONB, merged key by key), and the status column.
        attributes BLOB NOT NULL,
        sets_status INTEGER NOT NULL,
        status,
        -- The log record template: namespace, attributes (JSONB), payload, where its id and copy go,
        -- and its attribute columns (attr_memory_id is the changed record's id).
        log_namespace TEXT NOT NULL,
        log_attributes BLOB NOT NULL,
        log_payload TEXT NOT NULL,
        id_path TEXT NOT NULL,
        copy_path TEXT NOT NULL,
        log_kind,
        log_status,
        log_type,
        log_content_hash,
        log_occurred_at
      );
      CREATE TABLE logged_changes (
        -- The log record's rowid as reads see it: minus the changed record's (one pending change each).
        log_rowid INTEGER PRIMARY KEY,
        batch INTEGER NOT NULL,
        log_id TEXT NOT NULL UNIQUE,
        -- The payload keys the change sets (a JSON object), merged over the record's payload.
        payload TEXT NOT NULL
      );
      CREATE INDEX logged_changes_batch ON logged_changes (batch);
      CREATE VIEW records_now AS SELECT
        r.rowid AS rowid, r.id AS id, r.namespace AS namespace, r.tenant AS tenant, r.text AS text,
        r.context AS context,
        iif(c.log_rowid IS NULL, r.attributes, jsonb_patch(r.attributes, b.attributes)) AS attributes,
        iif(c.log_rowid IS NULL, r.payload, json_patch(r.payload, c.payload)) AS payload,
        r.attr_kind AS attr_kind, iif(b.sets_status, b.status, r.attr_status) AS attr_status,
        r.attr_type AS attr_type, r.attr_content_hash AS attr_content_hash, r.attr_memory_id AS attr_memory_id,
        r.attr_occurred_at AS attr_occurred_at, c.log_rowid IS NOT NULL AS pending
      FROM records r
      LEFT JOIN logged_changes c ON c.log_rowid = -r.rowid
      LEFT JOIN logged_batches b ON b.rowid = c.batch;
      CREATE VIEW logged_records AS SELECT
        c.log_rowid AS rowid, c.log_id AS id, b.log_namespace AS namespace, m.tenant AS tenant, '' AS text,
        '' AS context, jsonb_set(b.log_attributes, '$.memoryId', m.id) AS attributes,
        json_set(b.log_payload, b.id_path, c.log_id, '$.memoryId', m.id, b.copy_path,
          json(json_patch(m.payload, c.payload))) AS payload,
        b.log_kind AS attr_kind, b.log_status AS attr_status, b.log_type AS attr_type,
        b.log_content_hash AS attr_content_hash, m.id AS attr_memory_id, b.log_occurred_at AS attr_occurred_at,
        m.rowid AS changed
      FROM logged_changes c
      JOIN logged_batches b ON b.rowid = c.batch
      -- Both directions, so that the planner can start from either table (by the record's id or the log's).
      JOIN records m ON m.rowid = -c.log_rowid AND c.log_rowid = -m.rowid;
      -- A process on a version before this step reads and writes records alone: it would update or delete
      -- a record without folding its pending change (the change would stay merged over its write, or be
      -- left to a later record that reuses the rowid). Such writes are refused; this version folds first.
      CREATE TRIGGER records_pending_update BEFORE UPDATE ON records
        WHEN EXISTS (SELECT 1 FROM logged_changes WHERE log_rowid = -old.rowid) BEGIN
        SELECT RAISE(ABORT, 'agentmem: this record has a change pending that only @agentmem/sqlite with schema 8 or later reads; upgrade this process');
      END;
      CREATE TRIGGER records_pending_delete BEFORE DELETE ON records
        WHEN EXISTS (SELECT 1 FROM logged_changes WHERE log_rowid = -old.rowid) BEGIN
        SELECT RAISE(ABORT, 'agentmem: this record has a change pending that only @agentmem/sqlite with schema 8 or later reads; upgrade this process');
      END;
      -- Planner statistics: few batches, many changes per batch (a scan of the batches comes first).
      INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES
        ('logged_batches', NULL, '100'),
        ('logged_changes', 'logged_changes_batch', '1000000 10000'),
        ('logged_changes', 'sqlite_autoindex_logged_changes_1', '1000000 1');
      ANALYZE sqlite_schema;
      CREATE VIEW records_all AS
        SELECT rowid, id, namespace, tenant, text, context, attributes, payload, attr_kind, attr_status, attr_type,
          attr_content_hash, attr_memory_id, attr_occurred_at FROM records_now
        UNION ALL
        SELECT rowid, id, namespace, tenant, text, context, attributes, payload, attr_kind, attr_status, attr_type,
          attr_content_hash, attr_memory_id, attr_occurred_at FROM logged_records;
    `,
  },
  {
    version: 9,
    description: 'the keyword index kept in the file, with the ids each write changed since',
    sql: `
      -- The in-process BM25F index was rebuilt from every record's text on a process's first keyword
      -- search (2-3 s at 100k memories, the whole cold start). It is now saved here (KeywordIndex.toBytes)
      -- as of a generation of keyword_changes, and a process loads it and re-reads only the records
      -- named by the changes after that generation. A missing or unreadable snapshot means a rebuild.
      CREATE TABLE keyword_snapshot (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        generation INTEGER NOT NULL,
        data BLOB NOT NULL
      );
      -- One row per write (a batch, not a record) that changed what the keyword index holds: the ids
      -- (JSON array) it wrote, patched or deleted. AUTOINCREMENT: a generation is never reused once
      -- the rows a snapshot covers are deleted.
      CREATE TABLE keyword_changes (
        generation INTEGER PRIMARY KEY AUTOINCREMENT,
        ids TEXT NOT NULL
      );
    `,
  },
  {
    version: 10,
    description: 'the saved keyword index in parts a process reads as its searches need them',
    sql: `
      -- Loading the saved index read one blob (12.7 MB at 100k memories) and decoded every term: most
      -- of a cold start. Now keyword_snapshot holds a small header (KeywordIndex.toParts) and the parts
      -- (document lengths and classes, attribute columns, ids by slot range, postings by term hash)
      -- are rows here, read when a search needs them. A save replaces all of them under a new random
      -- save id, so a process that read the header of one save never mixes in a part of another:
      -- such a part is missing, and the process loads again. The old one-blob snapshot is dropped
      -- (the next search rebuilds and saves it in parts).
      DROP TABLE keyword_snapshot;
      CREATE TABLE keyword_snapshot (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        generation INTEGER NOT NULL,
        save INTEGER NOT NULL,
        data BLOB NOT NULL
      );
      CREATE TABLE keyword_parts (
        part INTEGER PRIMARY KEY,
        save INTEGER NOT NULL,
        data BLOB NOT NULL
      );
    `,
  },
  {
    version: 11,
    description: 'the binary index of dense search kept in the file, with the rowids each write changed since',
    sql: `
      -- A process's first dense search loaded every row of ${CODES_TABLE} into its in-process binary
      -- index (~1.3 s of CPU at 100k vectors, nearly all of a cold start with dense vectors). The index
      -- is now saved here (BinaryIndex.toParts: per chunk of a scope, a part of rowids and sign codes
      -- and a part of int8 copies) as of a generation of dense_changes, the way the keyword index is
      -- saved: a process reads the sign codes, re-reads only the rows named by the changes after that
      -- generation, and the int8 copies later. A save replaces all parts under a new random save id.
      CREATE TABLE IF NOT EXISTS dense_snapshot (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        generation INTEGER NOT NULL,
        save INTEGER NOT NULL,
        data BLOB NOT NULL
      );
      CREATE TABLE IF NOT EXISTS dense_parts (
        part INTEGER PRIMARY KEY,
        save INTEGER NOT NULL,
        data BLOB NOT NULL
      );
      -- One row per write that changed vectors, while a save exists: the rowids (JSON array) it wrote
      -- or deleted. Its own log, not keyword_changes: that one names records by id (a deleted record's
      -- rowid is gone with it) and is cut back by the keyword index's saves.
      CREATE TABLE IF NOT EXISTS dense_changes (
        generation INTEGER PRIMARY KEY AUTOINCREMENT,
        rowids TEXT NOT NULL
      );
    `,
  },
  {
    version: 12,
    description: 'memories rememberMany created imply their create history entry (no history row) until they change',
    sql: `
      -- No change of layout: a memory record's attributes may hold "historyPending": true, and its
      -- create entry is then implied by the record (core's codec) until the memory first changes (other
      -- than decay's prune, which only sets prunedAt), when the write folds it into a history row first. The version says so to older releases: they
      -- would change such a memory without writing that row (losing its create entry), so they refuse
      -- the file instead, as they refuse any newer schema. Files of version 11 or older hold only rows.
      SELECT 1;
    `,
  },
  {
    version: 13,
    description: 'each vector stored once: the vec0 table dropped, exact dense search scans vector_codes',
    sql: `
      -- Every vector was stored twice: in sqlite-vec's vec0 table (exact KNN) and as the plain copy in
      -- ${CODES_TABLE} (rescoring by rowid). The copy in ${CODES_TABLE} is now the only one: exact search
      -- scans it with sqlite-vec's vec_distance_cosine (the same cosine vec0 computed), through this
      -- index when it names a tenant, so one tenant's query reads only its own rows as vec0's partitions
      -- did. The dimension vec0's declaration held moves to ${VECTOR_SPACE_TABLE} (one row, written by
      -- init({ dimension })).
      CREATE TABLE IF NOT EXISTS ${VECTOR_SPACE_TABLE} (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        dimension INTEGER NOT NULL CHECK (dimension > 0)
      );
      CREATE INDEX IF NOT EXISTS ${CODES_TABLE}_scope ON ${CODES_TABLE} (tenant, namespace);
    `,
    apply: (db) => {
      const vectors = db
        .prepare("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?")
        .pluck()
        .get(VECTOR_TABLE) as string | undefined;
      if (vectors === undefined) return; // init() never ran: no vectors, no dimension yet
      const dimension = Number(/float\[(\d+)\]/.exec(vectors)?.[1]);
      if (!(dimension > 0)) throw new Error(`agentmem: cannot read the dimension of the vector table (${vectors}).`);
      db.prepare(`INSERT OR REPLACE INTO ${VECTOR_SPACE_TABLE} (id, dimension) VALUES (1, ?)`).run(dimension);
      // Every write since schema 5 put a vector in both tables in one transaction; a vector found only in
      // vec0 (a raw-SQL edit) is copied over rather than lost, and then the saved binary index is stale.
      const copied = copyVecRowsToCodes(db, `WHERE rowid NOT IN (SELECT rowid FROM ${CODES_TABLE})`);
      if (copied > 0) db.exec('DELETE FROM dense_snapshot');
      db.exec(`DROP TABLE ${VECTOR_TABLE}`);
    },
  },
];

/**
 * Copies the `vec0` table's rows (those `where` keeps) into the codes table with their sign codes, in
 * one statement (a row cannot be written while another statement iterates): the codes come from a
 * function. Returns how many rows it copied.
 */
function copyVecRowsToCodes(db: Database.Database, where: string): number {
  db.function('agentmem_sign_code', { deterministic: true }, (blob: unknown) => codeBlob(blobVector(blob as Buffer)));
  return db
    .prepare(
      `INSERT INTO ${CODES_TABLE} (rowid, tenant, namespace, code, embedding)
       SELECT rowid, tenant, namespace, agentmem_sign_code(embedding), embedding FROM ${VECTOR_TABLE} ${where}`,
    )
    .run().changes;
}

/** A float vector stored as a blob, as a Float32Array (copied when the blob is not 4-byte aligned). */
export function blobVector(blob: Buffer): Float32Array {
  if (blob.byteOffset % 4 === 0) return new Float32Array(blob.buffer, blob.byteOffset, blob.byteLength / 4);
  return new Float32Array(blob.buffer.slice(blob.byteOffset, blob.byteOffset + blob.byteLength));
}

/** The sign-bit code of a vector as stored (little-endian 32-bit words, as `encodeSigns` gives them). */
export function codeBlob(vector: Float32Array): Buffer {
  const code = encodeSigns(vector);
  return Buffer.from(code.buffer, code.byteOffset, code.byteLength);
}

/**
 * Attributes with their own column (and index), written alongside `attributes`
 * by every write; filters on them compare the column. Their value is what
 * json_extract gives: text, number, 1/0 for booleans, NULL when missing.
 */
export const ATTRIBUTE_COLUMNS: Readonly<Record<string, string>> = {
  kind: 'attr_kind',
  status: 'attr_status',
  type: 'attr_type',
  contentHash: 'attr_content_hash',
  memoryId: 'attr_memory_id',
  occurredAt: 'attr_occurred_at',
};

/** The schema version this build writes and reads. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

/** `PRAGMA application_id` of every agentmem file ("AgMm"): how a file is recognised as ours. */
export const APPLICATION_ID = 0x41_67_4d_6d;

/**
 * Name of the sqlite-vec `vec0` table that held a second copy of every vector until schema 13
 * (created by `init({ dimension })`); upgrading a file drops it.
 * @deprecated No file of schema 13 or later has this table: vectors are in `vector_codes`.
 */
export const VECTOR_TABLE = 'vectors';

/**
 * The `vec0` table files before schema 13 kept (partitioned by tenant and namespace, chunks of 256).
 * @deprecated The backend no longer creates it (schema 13 stores each vector once, in `vector_codes`).
 */
export function createVectorTableSql(dimension: number): string {
  return `CREATE VIRTUAL TABLE ${VECTOR_TABLE} USING vec0(
    tenant TEXT partition key, namespace TEXT partition key,
    embedding float[${dimension}] distance_metric=cosine, chunk_size=256
  )`;
}
