import {
  type BackendRecord,
  checkLinks,
  filterNamespaces,
  invalidInput,
  type LinkedKey,
  type LinkKeysOptions,
  type LinkKeysPage,
  type LinkQuery,
  linkQueryKeys,
} from '@agentmem/core';
import type Database from 'better-sqlite3';

/** Largest page `linkKeys` returns (never a limit on the total). */
const MAX_KEYS_PAGE = 1000;
/** Up to this many link rows in all, `linked` reads the ids of every key in one statement. */
const BATCHED_IDS = 5000;

/**
 * The two tables, created with the first link written (`IF NOT EXISTS`: a file
 * written before links existed simply has none yet, and older versions of this
 * package ignore them). `entity_links` holds one row per record and key; its
 * primary key (key, tenant, record id) walks a key's records in id order with
 * the namespace beside them. `entity_counts` keeps each key's count per scope,
 * so a key linked to tens of thousands of records (a speaker) costs one row to
 * count.
 */
const SCHEMA = `
  CREATE TABLE IF NOT EXISTS entity_links (
    key TEXT NOT NULL,
    tenant TEXT NOT NULL,
    namespace TEXT NOT NULL,
    record_id TEXT NOT NULL,
    PRIMARY KEY (key, tenant, record_id)
  ) WITHOUT ROWID;
  CREATE INDEX IF NOT EXISTS entity_links_record ON entity_links (record_id);
  CREATE TABLE IF NOT EXISTS entity_counts (
    key TEXT NOT NULL,
    tenant TEXT NOT NULL,
    namespace TEXT NOT NULL,
    count INTEGER NOT NULL,
    PRIMARY KEY (key, tenant, namespace)
  ) WITHOUT ROWID;
`;

type Scope = { tenant: string | null; namespaces?: readonly string[] };

/**
 * Memory <-> entity links of one SQLite connection, in tables of their own.
 * The backend calls `written` and `deleted` inside its write transactions (a
 * rollback takes the links back with the records) and `attach` inside the
 * reads of `get` and `scan`; `linked` and `linkKeys` answer from the indexes.
 */
export class SqliteEntityLinks {
  private readonly exists: Database.Statement;
  private readonly statements = new Map<string, Database.Statement>();

  constructor(private readonly db: Database.Database) {
    this.exists = db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'entity_links'").pluck();
  }

  /** Asked each time: another process may create the tables, and a rolled-back transaction may take them away. */
  private hasTables(): boolean {
    return this.exists.get() !== undefined;
  }

  /** A prepared statement, kept (only prepared once the tables exist). */
  private stmt(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  /** A record's links, checked (upsert checks every record before it writes any). */
  check(record: BackendRecord): void {
    checkLinks(record.id, record.links);
  }

  /**
   * Inside the caller's write transaction: these records were written; their links replace the old ones.
   * `allNew`: no record had a row before this write (and each id comes once), so none has old links.
   */
  written(records: readonly BackendRecord[], allNew = false): void {
    const tables = this.hasTables();
    // Most bulk writes link nothing: no map of the batch then.
    if (!tables && !records.some((r) => r.links && r.links.length > 0)) return;
    const last = new Map(records.map((r) => [r.id, r]));
    const linked = [...last.values()].filter((r) => r.links && r.links.length > 0);
    if (!tables) this.db.exec(SCHEMA);
    if (!allNew) this.remove([...last.keys()]);
    const rows = linked.flatMap((r) => [...new Set(r.links)].map((key) => [key, r.tenant, r.namespace, r.id]));
    if (rows.length === 0) return;
    this.stmt(
      'INSERT INTO entity_links (key, tenant, namespace, record_id) SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3 FROM json_each(?)',
    ).run(JSON.stringify(rows));
    this.count(
      rows.map(([key, tenant, namespace]) => [key!, tenant!, namespace!]),
      1,
    );
  }

  /** Inside the caller's write transaction: these records are gone, and so are their links. */
  deleted(ids: readonly string[]): void {
    if (ids.length > 0 && this.hasTables()) this.remove(ids);
  }

  private remove(ids: readonly string[]): void {
    const old = this.stmt(
      'DELETE FROM entity_links WHERE record_id IN (SELECT value FROM json_each(?)) RETURNING key, tenant, namespace',
    )
      .raw()
      .all(JSON.stringify([...new Set(ids)])) as [string, string, string][];
    if (old.length > 0) this.count(old, -1);
  }

  /** Adds `sign` per (key, tenant, namespace) row to the counts; a count that reaches 0 goes. */
  private count(rows: readonly (readonly [string, string, string])[], sign: 1 | -1): void {
    const deltas = new Map<string, [string, string, string, number]>();
    for (const [key, tenant, namespace] of rows) {
      const id = JSON.stringify([key, tenant, namespace]);
      const entry = deltas.get(id) ?? [key, tenant, namespace, 0];
      entry[3] += sign;
      deltas.set(id, entry);
    }
    const json = JSON.stringify([...deltas.values()]);
    this.stmt(
      'INSERT INTO entity_counts (key, tenant, namespace, count) SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3 FROM json_each(?) WHERE true ' +
        'ON CONFLICT (key, tenant, namespace) DO UPDATE SET count = count + excluded.count',
    ).run(json);
    if (sign < 0) {
      this.stmt(
        'DELETE FROM entity_counts WHERE (key, tenant, namespace) IN (SELECT value ->> 0, value ->> 1, value ->> 2 FROM json_each(?)) AND count <= 0',
      ).run(json);
    }
  }

  /** Inside the caller's read: the records with their links. */
  attach<T extends { id: string; links?: string[] }>(records: T[]): T[] {
    if (records.length === 0 || !this.hasTables()) return records;
    const rows = this.stmt(
      'SELECT record_id, json_group_array(key) FROM (SELECT record_id, key FROM entity_links WHERE record_id IN (SELECT value FROM json_each(?)) ORDER BY record_id, key) GROUP BY record_id',
    )
      .raw()
      .all(JSON.stringify(records.map((r) => r.id))) as [string, string][];
    const byId = new Map(rows.map(([id, keys]) => [id, JSON.parse(keys) as string[]]));
    for (const r of records) {
      const keys = byId.get(r.id);
      if (keys) r.links = keys;
    }
    return records;
  }

  /** SQL conditions on the scope, with their arguments. */
  private scope(scope: Scope, args: unknown[]): string {
    let sql = '';
    if (scope.tenant !== null) {
      if (typeof scope.tenant !== 'string') throw invalidInput('tenant must be a string or null.');
      args.push(scope.tenant);
      sql += ' AND tenant = ?';
    }
    if (scope.namespaces !== undefined) {
      args.push(JSON.stringify(filterNamespaces(scope.namespaces)));
      sql += ' AND namespace IN (SELECT value FROM json_each(?))';
    }
    return sql;
  }

  linked(query: LinkQuery): LinkedKey[] {
    const keys = linkQueryKeys(query);
    const none = () => keys.map((key) => ({ key, count: 0, ids: [] }));
    if ((query.namespaces && query.namespaces.length === 0) || !this.hasTables()) return none();
    const scopeArgs: unknown[] = [];
    const scope = this.scope(query, scopeArgs);
    const json = JSON.stringify(keys);
    // Every key's count in one statement (recall asks about some thirty keys per query).
    const counts = new Map(
      this.stmt(
        `SELECT key, sum(count) FROM entity_counts WHERE key IN (SELECT value FROM json_each(?))${scope} GROUP BY key`,
      )
        .raw()
        .all(json, ...scopeArgs) as [string, number][],
    );
    const count = (key: string) => counts.get(key) ?? 0;
    const wanted = keys.filter(
      (k) => count(k) > 0 && query.limit > 0 && (query.maxCount === undefined || count(k) <= query.maxCount),
    );
    const ids = new Map<string, string[]>();
    const after = query.after === undefined ? '' : ' AND record_id > ?';
    const afterArgs = query.after === undefined ? [] : [query.after];
    if (wanted.reduce((sum, k) => sum + count(k), 0) <= BATCHED_IDS) {
      // Few rows in all: every wanted key's ids in one statement, cut to `limit` here.
      const rows = this.stmt(
        `SELECT key, record_id FROM entity_links WHERE key IN (SELECT value FROM json_each(?))${scope}${after} ORDER BY key, record_id`,
      )
        .raw()
        .all(JSON.stringify(wanted), ...scopeArgs, ...afterArgs) as [string, string][];
      for (const [key, id] of rows) {
        const list = ids.get(key) ?? [];
        if (list.length < query.limit) list.push(id);
        ids.set(key, list);
      }
    } else {
      // A key of many records (paging through a speaker's turns): its first `limit` from the index.
      const page = this.stmt(
        `SELECT record_id FROM entity_links WHERE key = ?${scope}${after} ORDER BY record_id LIMIT ?`,
      ).pluck();
      for (const key of wanted) ids.set(key, page.all(key, ...scopeArgs, ...afterArgs, query.limit) as string[]);
    }
    return keys.map((key) => ({ key, count: count(key), ids: ids.get(key) ?? [] }));
  }

  linkKeys(options: LinkKeysOptions): LinkKeysPage {
    if (!options || typeof options !== 'object')
      throw invalidInput('linkKeys() takes { tenant, namespaces?, prefix?, cursor?, limit? }.');
    const limit = Math.min(MAX_KEYS_PAGE, Math.max(1, Math.floor(options.limit ?? MAX_KEYS_PAGE)));
    if ((options.namespaces && options.namespaces.length === 0) || !this.hasTables()) return { keys: [] };
    const args: unknown[] = [];
    let where = `true${this.scope(options, args)}`;
    if (options.prefix) {
      where += ' AND substr(key, 1, length(?)) = ?';
      args.push(options.prefix, options.prefix);
    }
    if (options.cursor !== undefined) {
      where += ' AND key > ?';
      args.push(options.cursor);
    }
    const rows = this.stmt(
      `SELECT key, sum(count) AS count FROM entity_counts WHERE ${where} GROUP BY key ORDER BY key LIMIT ?`,
    ).all(...args, limit + 1) as { key: string; count: number }[];
    const keys = rows.slice(0, limit);
    return rows.length > limit ? { keys, cursor: keys[keys.length - 1]!.key } : { keys };
  }
}
