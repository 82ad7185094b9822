import { BinaryIndex, encodeSigns, isSparse } from '@agentmem/core';
import type Database from 'better-sqlite3';
import { blobVector, CODES_TABLE } from '../schema';
import { chunks, valuesList } from './multi-row';

interface PendingCode {
  rowid: number;
  /** Undefined: the row's vector was deleted. */
  code?: { tenant: string; namespace: string; bits: Uint32Array };
}

/**
 * The in-process binary index of one SQLite connection, over the codes table.
 * The table is the truth and is written in the caller's transaction; the
 * in-process index only picks candidates, which are always re-read from the
 * table, so it may hold more than the file but never miss a committed row:
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

  constructor(
    private readonly db: Database.Database,
    private readonly dimension: number,
  ) {}

  /** Inside the caller's write transaction: each row's vector is `vector` (its blob `blob`). */
  writtenMany(
    rows: readonly { rowid: number; tenant: string; namespace: string; vector: Float32Array; blob: Buffer }[],
  ): void {
    const coded = rows.map((r) => ({ ...r, bits: encodeSigns(r.vector) }));
    for (const [offset, size] of chunks(coded.length)) {
      const args: unknown[] = [];
      for (let i = offset; i < offset + size; i++) {
        const { rowid, tenant, namespace, bits, blob } = coded[i]!;
        args.push(rowid, tenant, namespace, Buffer.from(bits.buffer, bits.byteOffset, bits.byteLength), blob);
      }
      this.stmt(
        `INSERT OR REPLACE INTO ${CODES_TABLE} (rowid, tenant, namespace, code, embedding) VALUES ${valuesList('(?, ?, ?, ?, ?)', size)}`,
      ).run(args);
    }
    for (const { rowid, tenant, namespace, bits } of coded)
      this.pending.push({ rowid, code: { tenant, namespace, bits } });
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
        if (p.code) this.index.setCode(p.rowid, p.code.tenant, p.code.namespace, p.code.bits);
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
   * scope, plus the rows the open transaction wrote there. Call `size` first.
   */
  candidates(
    query: Float32Array,
    scope: { tenant: string | null; namespaces?: readonly string[] },
    m: number,
  ): number[] {
    const rowids = this.index ? this.index.nearest(query, scope, m) : [];
    if (this.pending.length > 0) {
      const inScope = new Set(rowids);
      for (const p of this.pending) {
        const c = p.code;
        if (!c || inScope.has(p.rowid)) continue;
        if (scope.tenant !== null && c.tenant !== scope.tenant) continue;
        if (scope.namespaces && !scope.namespaces.includes(c.namespace)) continue;
        inScope.add(p.rowid);
        rowids.push(p.rowid);
      }
    }
    return rowids;
  }

  /** The float vectors of those rowids that pass `where` (SQL over `records r`), read from the codes table. */
  vectors(
    rowids: readonly number[],
    where: { sql: string; params: Record<string, unknown> },
  ): { rowid: number; id: string; vector: Float32Array }[] {
    const rows = this.stmt(
      `SELECT r.rowid AS rowid, r.id AS id, v.embedding AS embedding FROM records r JOIN ${CODES_TABLE} v ON v.rowid = r.rowid ` +
        `WHERE r.rowid IN (SELECT value FROM json_each(@rowids)) AND ${where.sql}`,
    ).all({ ...where.params, rowids: JSON.stringify(rowids) }) as { rowid: number; id: string; embedding: Buffer }[];
    return rows.map((r) => ({ rowid: r.rowid, id: r.id, vector: blobVector(r.embedding) }));
  }

  private load(): BinaryIndex<number> | undefined {
    const version = this.db.pragma('data_version', { simple: true }) as number;
    if (version !== this.version) this.index = undefined; // another connection committed
    if (this.index) return this.usable ? this.index : undefined;
    // Loaded outside transactions only, so that the index never holds rows a rollback takes back.
    if (this.db.inTransaction) return undefined;
    const table = this.db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?").get(CODES_TABLE);
    if (!table) return undefined; // a read-only file from before schema step 4: exact search
    const sample = this.db.prepare(`SELECT embedding FROM ${CODES_TABLE} LIMIT 32`).pluck().all() as Buffer[];
    this.usable = !sample.some((b) => isSparse(blobVector(b)));
    const index = new BinaryIndex<number>(this.dimension);
    if (this.usable) {
      const words = index.words;
      const rows = this.db.prepare(`SELECT rowid, tenant, namespace, code FROM ${CODES_TABLE}`).raw().iterate();
      for (const [rowid, tenant, namespace, code] of rows as Iterable<[number, string, string, Buffer]>) {
        const bits = new Uint32Array(words);
        new Uint8Array(bits.buffer).set(code.subarray(0, words * 4));
        index.setCode(rowid, tenant, namespace, bits);
      }
    }
    this.index = index;
    this.version = version;
    return this.usable ? index : undefined;
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
