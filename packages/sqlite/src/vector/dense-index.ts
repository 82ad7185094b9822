import { BinaryIndex, cosineSimilarity, encodeRescoring, isSparse } from '@agentmem/core';
import type Database from 'better-sqlite3';
import { chunks, multiRowInsert } from '../records';
import { blobVector, CODES_TABLE, codeBlob } from '../schema';

const INSERT_CODES = multiRowInsert(
  `INSERT OR REPLACE INTO ${CODES_TABLE} (rowid, tenant, namespace, code, embedding)`,
  '(?, ?, ?, ?, ?)',
);

/** A row's vector as written: `floats`, and `vector` its bytes. */
export interface WrittenVector {
  tenant: string;
  namespace: string;
  floats: Float32Array;
  vector: Buffer;
}

interface PendingCode {
  rowid: number;
  /** Undefined: the row's vector was deleted. */
  code?: { tenant: string; namespace: string; vector: Float32Array; encoded: Uint8Array };
}

/**
 * The in-process binary index of one SQLite connection, over the codes table,
 * with an int8 copy of every vector (384 bytes at 384 dims) that ranks the
 * Hamming pool in memory, so only the head of the ranking is read from the
 * file. The table is the truth and is written in the caller's transaction; the
 * in-process index only picks and orders candidates, which are always re-read
 * from the table (with the filter, and their exact floats for the final
 * scores), so it may hold more than the file but never miss a committed row:
 * this connection's writes reach it when their transaction commits (a search
 * inside a transaction also looks at the rows that transaction wrote), other
 * connections' commits (`PRAGMA data_version` changes) make it reload.
 */
export class SqliteDenseIndex {
  private index: BinaryIndex<number> | undefined;
  /** False when the file's vectors are sparse (lexical embedder): signs cannot rank them. */
  private usable = true;
  private version: number | undefined;
  private pending: PendingCode[] = [];
  private readonly statements = new Map<string, Database.Statement>();

  /** Prepared once: `db.pragma()` prepares its statement on every call, and every search asks. */
  private readonly dataVersion: Database.Statement;

  constructor(
    private readonly db: Database.Database,
    private readonly dimension: number,
  ) {
    this.dataVersion = db.prepare('PRAGMA data_version').pluck();
  }

  /** Inside the caller's write transaction: the vectors of these rowids (rows[i] is rowids[i]'s) were written. */
  writtenMany(rowids: readonly number[], rows: readonly WrittenVector[]): void {
    // The code column holds the sign bits and, for dense vectors, the int8 copy after them
    // (encodeRescoring), so loading the index copies bytes instead of quantizing every vector.
    const encoded = rows.map((r) => {
      const code = isSparse(r.floats) ? codeBlob(r.floats) : encodeRescoring(r.floats);
      return Buffer.from(code.buffer, code.byteOffset, code.byteLength);
    });
    for (const [offset, size] of chunks(rows.length)) {
      const args: unknown[] = new Array(size * 5);
      for (let i = 0; i < size; i++) {
        const row = rows[offset + i]!;
        args[i * 5] = rowids[offset + i];
        args[i * 5 + 1] = row.tenant;
        args[i * 5 + 2] = row.namespace;
        args[i * 5 + 3] = encoded[offset + i];
        args[i * 5 + 4] = row.vector;
      }
      this.stmt(INSERT_CODES(size)).run(args);
    }
    for (let i = 0; i < rows.length; i++) {
      const { tenant, namespace, floats } = rows[i]!;
      this.pending.push({ rowid: rowids[i]!, code: { tenant, namespace, vector: floats, encoded: encoded[i]! } });
    }
  }

  /** Inside the caller's write transaction: the row (or its vector) is gone. */
  deleted(rowid: number): void {
    this.stmt(`DELETE FROM ${CODES_TABLE} WHERE rowid = ?`).run(rowid);
    this.pending.push({ rowid });
  }

  /** Position to roll back to when a savepoint is undone. */
  mark(): number {
    return this.pending.length;
  }

  rollbackTo(mark: number): void {
    this.pending.length = Math.min(this.pending.length, mark);
  }

  /** The outermost transaction committed: its codes join the in-process index. */
  committed(): void {
    // Loaded from an empty table, the sample said nothing about the vectors: load again with these.
    if (this.index?.size === 0 && this.pending.length > 0) this.index = undefined;
    if (this.index) {
      for (const p of this.pending) {
        if (p.code) this.addCode(this.index, p.rowid, p.code.tenant, p.code.namespace, p.code.encoded, p.code.vector);
        else this.index.remove(p.rowid);
      }
    }
    this.pending = [];
  }

  rolledBack(): void {
    this.pending = [];
  }

  /**
   * How many vectors the scope holds (with those the open transaction wrote),
   * or undefined when the binary index cannot serve: sparse vectors, a file
   * without the codes table, a first load inside a transaction.
   */
  size(scope: { tenant: string | null; namespaces?: readonly string[] }): number | undefined {
    const index = this.load();
    return index ? index.count(scope) + this.pending.length : undefined;
  }

  /**
   * Rowids of the `m` vectors nearest to the query by Hamming distance in the
   * scope, plus the rows the open transaction wrote there (scored exactly),
   * best first by their int8 (near-exact) cosine. Call `size` first.
   */
  candidates(
    query: Float32Array,
    scope: { tenant: string | null; namespaces?: readonly string[] },
    m: number,
  ): number[] {
    const { keys, scores } = this.index ? this.index.ranked(query, scope, m) : { keys: [], scores: [] };
    if (this.pending.length === 0) return keys;
    // The open transaction's rows: the last write of a rowid wins over the index and earlier writes.
    const latest = new Map<number, PendingCode>();
    for (const p of this.pending) latest.set(p.rowid, p);
    const ranked: { rowid: number; score: number }[] = [];
    for (let i = 0; i < keys.length; i++)
      if (!latest.has(keys[i]!)) ranked.push({ rowid: keys[i]!, score: scores[i]! });
    for (const p of latest.values()) {
      const c = p.code;
      if (!c) continue;
      if (scope.tenant !== null && c.tenant !== scope.tenant) continue;
      if (scope.namespaces && !scope.namespaces.includes(c.namespace)) continue;
      ranked.push({ rowid: p.rowid, score: cosineSimilarity(query, c.vector) });
    }
    return ranked.sort((x, y) => y.score - x.score || x.rowid - y.rowid).map((r) => r.rowid);
  }

  /**
   * Those rowids' rows that pass `where` (SQL over `source r`: records, or the view that merges
   * pending logged changes in), as `columns` select them, each with its float vector read from the
   * codes table.
   */
  rows<T extends { rowid: number }>(
    rowids: readonly number[],
    columns: string,
    where: { sql: string; params: Record<string, unknown> },
    source = 'records',
  ): { row: T; vector: Float32Array }[] {
    const rows = this.stmt(
      `SELECT ${columns}, v.embedding AS embedding FROM ${source} r JOIN ${CODES_TABLE} v ON v.rowid = r.rowid ` +
        `WHERE r.rowid IN (SELECT value FROM json_each(@rowids)) AND ${where.sql}`,
    ).all({ ...where.params, rowids: JSON.stringify(rowids) }) as (T & { embedding: Buffer })[];
    return rows.map((row) => ({ row, vector: blobVector(row.embedding) }));
  }

  private load(): BinaryIndex<number> | undefined {
    const version = this.dataVersion.get() as number;
    if (version !== this.version) this.index = undefined; // another connection committed
    if (this.index) return this.usable ? this.index : undefined;
    // Loaded outside transactions only, so that the index never holds rows a rollback takes back.
    if (this.db.inTransaction) return undefined;
    const table = this.db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?").get(CODES_TABLE);
    if (!table) return undefined; // a read-only file from before schema step 4: exact search
    const sample = this.db.prepare(`SELECT embedding FROM ${CODES_TABLE} LIMIT 32`).pluck().all() as Buffer[];
    this.usable = !sample.some((b) => isSparse(blobVector(b)));
    const index = new BinaryIndex<number>(this.dimension, { rescoring: true });
    if (this.usable) {
      // Codes written before the int8 copy joined them (sign bits only) are quantized from the floats.
      // Read through the page cache, not the memory map: mapped, every page of the table read once
      // here would stay in the process's resident memory (~200 MB at 100k vectors) though searches
      // then read only a few rows each.
      const mmap = this.db.pragma('mmap_size', { simple: true }) as number;
      if (mmap > 0) this.db.pragma('mmap_size = 0');
      try {
        const rows = this.db
          .prepare(
            `SELECT rowid, tenant, namespace, code, CASE WHEN length(code) = ? THEN NULL ELSE embedding END FROM ${CODES_TABLE}`,
          )
          .raw()
          .iterate(index.encodedBytes);
        for (const [rowid, tenant, namespace, code, embedding] of rows as Iterable<
          [number, string, string, Buffer, Buffer | null]
        >)
          this.addCode(index, rowid, tenant, namespace, code, embedding ? blobVector(embedding) : undefined);
      } finally {
        if (mmap > 0) this.db.pragma(`mmap_size = ${mmap}`);
      }
    }
    this.index = index;
    this.version = version;
    return this.usable ? index : undefined;
  }

  /** Copies a full code (signs + int8), or quantizes the vector of a signs-only one. */
  private addCode(
    index: BinaryIndex<number>,
    rowid: number,
    tenant: string,
    namespace: string,
    encoded: Uint8Array,
    vector: Float32Array | undefined,
  ): void {
    if (encoded.length === index.encodedBytes) index.setEncoded(rowid, tenant, namespace, encoded);
    else if (vector) index.set(rowid, tenant, namespace, vector);
  }

  private stmt(sql: string): Database.Statement {
    let s = this.statements.get(sql);
    if (!s) {
      if (this.statements.size >= 100) this.statements.clear();
      s = this.db.prepare(sql);
      this.statements.set(sql, s);
    }
    return s;
  }
}
