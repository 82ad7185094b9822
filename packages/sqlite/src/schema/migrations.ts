/** One step of the schema, applied in order inside one write transaction. */
export interface Migration {
  /** The schema version after this step (`PRAGMA user_version`). */
  version: number;
  description: string;
  sql: string;
}

/**
 * The schema history. Never edit a shipped step: add a new one. The vector
 * table is not here because its dimension is only known at `init({ dimension })`
 * (see `createVectorTableSql`).
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
];

/** The schema version this build writes and reads. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

/** `PRAGMA application_id` of every agentmem file ("AgMm"): how a file is recognised as ours. */
export const APPLICATION_ID = 0x41_67_4d_6d;

/** Name of the sqlite-vec table; created by `init({ dimension })`. */
export const VECTOR_TABLE = 'vectors';

/**
 * Vectors live in a vec0 table partitioned by (tenant, namespace), so a KNN
 * query only visits the scopes it asks for. Chunks are preallocated per
 * partition: 256 vectors keeps small stores small at no measurable KNN cost.
 */
export function createVectorTableSql(dimension: number): string {
  return `CREATE VIRTUAL TABLE ${VECTOR_TABLE} USING vec0(
    tenant TEXT partition key, namespace TEXT partition key,
    embedding float[${dimension}] distance_metric=cosine, chunk_size=256
  )`;
}
