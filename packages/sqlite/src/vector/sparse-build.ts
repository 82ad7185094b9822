import type Database from 'better-sqlite3';
import { beginImmediateNow, CODES_TABLE } from '../schema';
import { CHUNK, int8Factors, SPARSE_PARTIAL_FORMAT, sparseHeader } from './sparse-index';

/**
 * Rows per statement of a build, read as one blob of their floats (1.5 MB at 384 dims): a row a
 * time, better-sqlite3 made a Buffer of each row's floats and strings of its scope (~5 us a row,
 * more than the rest of the build); batched, the read took ~2.6 us a row at 100k.
 */
const BUILD_BATCH = 1024;
/** Scopes a batched build tells apart in SQL (a CASE); a file with more is read row by row. */
const BUILD_SCOPES = 64;
/** Entries of a builder's scratch block: 96 KB of dimensions and values (~450 hashing vectors). */
const SCRATCH_BLOCK = 1 << 15;
/** Vectors of `dimension` components the first block of a builder has room for (see `nextBlock`). */
const FIRST_ROOM = 2;

/**
 * A SparseIndex's saved parts (`SparseIndex.toParts` layout) built straight from vectors added in
 * ascending key order, one chunk at a time: each chunk's vectors are quantized into one reused
 * row-major buffer (dimension and int8 value per non-zero component), which a counting sort by
 * dimension turns into that chunk's column parts. Nothing is kept per vector but the parts (4 bytes a
 * non-zero component, 17 a vector of metadata): no per-dimension growing arrays, no int32 copy of
 * every column, no second pass over them to save. `SparseIndex.fromParts` over the result is the
 * index (columns decoded when queries need them) and `toParts` of it, unchanged, gives the parts back
 * for the save. Quantizes as `SparseIndex.set` does.
 */
export class SparseBuilder {
  private readonly floats: Float32Array;
  private readonly floatBytes: Uint8Array;
  private readonly parts: Uint8Array[] = [];
  private readonly counts: number[] = [];
  private readonly scopeList: { tenant: string; namespace: string }[] = [];
  private readonly scopeIds = new Map<string, Map<string, number>>();
  // The chunk being built: its slots' metadata, and their non-zero components row by row.
  private readonly meta = new Uint8Array(CHUNK * 17);
  private readonly keys = new Float64Array(this.meta.buffer, 0, CHUNK);
  private readonly factors = new Float32Array(this.meta.buffer, CHUNK * 8, CHUNK);
  private readonly scopes = new Uint32Array(this.meta.buffer, CHUNK * 12, CHUNK);
  private readonly odd = this.meta.subarray(CHUNK * 16, CHUNK * 17);
  /** Each slot's first entry and the end of its entries, as block * blockSize + offset (a slot never spans blocks). */
  private readonly starts = new Uint32Array(CHUNK);
  private readonly ends = new Uint32Array(CHUNK);
  private readonly perDimension: Uint32Array;
  /**
   * The chunk's non-zero components, in blocks of `blockSize` entries added as needed and reused by the
   * next chunk (issue 30): one array doubled to a chunk's ~4.7M entries at 100k hashing vectors left
   * 19 MB live and ~18 MB of discarded copies through a bulk write, and the process kept that memory.
   */
  private readonly dimBlocks: Uint16Array[] = [];
  private readonly valueBlocks: Int8Array[] = [];
  private readonly blockSize: number;
  private n = 0;
  /** The next entry's block and offset in it (before the first vector: a full block before the first). */
  private block = -1;
  private offset: number;
  private previous = Number.NEGATIVE_INFINITY;
  /** Vectors added. */
  size = 0;
  /** int8Factors' output for `add`. */
  private readonly scaling = new Float64Array(2);
  /** The non-zero components of the vector being added. */
  private readonly nonzero: Uint16Array;

  /** `blockEntries`: entries a scratch block holds (at least a vector's worth). */
  constructor(
    readonly dimension: number,
    blockEntries = SCRATCH_BLOCK,
  ) {
    this.blockSize = Math.max(blockEntries, dimension);
    this.offset = this.blockSize;
    this.floats = new Float32Array(dimension);
    this.floatBytes = new Uint8Array(this.floats.buffer);
    this.perDimension = new Uint32Array(dimension);
    this.nonzero = new Uint16Array(dimension);
  }

  /** The id of a scope, for `add`. */
  scope(tenant: string, namespace: string): number {
    let byNamespace = this.scopeIds.get(tenant);
    if (!byNamespace) {
      byNamespace = new Map();
      this.scopeIds.set(tenant, byNamespace);
    }
    let id = byNamespace.get(namespace);
    if (id === undefined) {
      id = this.scopeList.length;
      this.scopeList.push({ tenant, namespace });
      byNamespace.set(namespace, id);
    }
    return id;
  }

  /** The vector of `key` (above every key added before), as float32 bytes at `bytes[offset...]`. */
  add(key: number, scope: number, bytes: Uint8Array, offset = 0): void {
    // One copy into an aligned scratch vector: no Float32Array a row.
    this.floatBytes.set(bytes.subarray(offset, offset + this.dimension * 4));
    this.addVector(key, scope, this.floats);
  }

  /** The vector of `key` (above every key added before). */
  addVector(key: number, scope: number, floats: Float32Array): void {
    const { dimension } = this;
    if (floats.length !== dimension) throw new Error(`SparseBuilder takes ${dimension} dimensions.`);
    if (!(key > this.previous)) throw new Error('SparseBuilder takes keys in ascending order.');
    if (!(scope < this.scopeList.length)) throw new Error('SparseBuilder: unknown scope.');
    this.previous = key;
    if (this.n === CHUNK) this.finishChunk(); // its metadata copied into its part: the buffers are reused
    // Room for a whole vector in the current block, else the next one.
    if (this.offset + dimension > this.blockSize) this.nextBlock();
    // int8Scaling's pass, which also lists the non-zero components (the position moved by whether the
    // component is non-zero, not by a branch: in a sparse vector that is hard to predict); only those
    // are quantized after it. A second pass over every component cost ~1.5 us of a hashing vector's ~4.
    const nonzero = this.nonzero;
    let max = 0;
    let norm = 0;
    let count = 0;
    for (let d = 0; d < dimension; d++) {
      const x = floats[d]!;
      norm += x * x;
      const m = Math.abs(x);
      if (m > max) max = m;
      nonzero[count] = d;
      count += +(x !== 0);
    }
    const ok = int8Factors(max, norm, this.scaling);
    const scale = this.scaling[0]!;
    const n = this.n;
    this.keys[n] = key;
    this.factors[n] = this.scaling[1]!;
    this.odd[n] = ok ? 0 : 1;
    this.scopes[n] = scope;
    const { perDimension } = this;
    const dims = this.dimBlocks[this.block]!;
    const values = this.valueBlocks[this.block]!;
    const base = this.block * this.blockSize;
    let entries = this.offset;
    this.starts[n] = base + entries;
    if (ok)
      for (let i = 0; i < count; i++) {
        const d = nonzero[i]!;
        const q = Math.round(floats[d]! * scale);
        if (q === 0) continue;
        dims[entries] = d;
        values[entries++] = q;
        perDimension[d]!++;
      }
    this.ends[n] = base + entries;
    this.offset = entries;
    this.n = n + 1;
    this.size++;
  }

  /**
   * Moves to the next block of the scratch, allocated the first time. A builder's first vectors go at
   * the end of its first block (`FIRST_ROOM` vectors of room), so that this runs again within its first
   * few vectors (~6 hashing ones), after addVector's type feedback exists (V8 allocates it lazily: the
   * first call records none) and before TurboFan compiles it (~20 vectors in). When the first block held
   * ~450 hashing vectors, addVector was compiled with no feedback for this path, deoptimized when the
   * block filled ("Insufficient type feedback for generic named access") and compiled again: 1 bailout
   * in each fresh 20k ingest, 0 now (issue 30). Later chunks reuse the first block whole.
   */
  private nextBlock(): void {
    this.block++;
    this.offset = this.size === 0 ? Math.max(0, this.blockSize - FIRST_ROOM * this.dimension) : 0;
    if (this.block === this.dimBlocks.length) {
      this.dimBlocks.push(new Uint16Array(this.blockSize));
      this.valueBlocks.push(new Int8Array(this.blockSize));
    }
  }

  /** The header and parts of what was added; `through`: the last key of a build not finished. */
  finish(through = Number.POSITIVE_INFINITY): { header: Uint8Array; parts: Uint8Array[]; size: number } {
    if (this.n > 0) this.finishChunk();
    // The scratch is not needed any more: given back now, not with the builder.
    this.dimBlocks.length = 0;
    this.valueBlocks.length = 0;
    this.block = -1;
    this.offset = this.blockSize;
    const header = sparseHeader(this.dimension, this.counts, this.scopeList, through);
    return { header, parts: this.parts, size: this.size };
  }

  /** Chunk sizes and scopes so far (after `finish`): what a header lists. */
  get chunkCounts(): readonly number[] {
    return this.counts;
  }
  get scopeNames(): readonly { tenant: string; namespace: string }[] {
    return this.scopeList;
  }

  private finishChunk(): void {
    const { n, meta, dimension, parts, starts, ends, perDimension, dimBlocks, valueBlocks, blockSize } = this;
    // Metadata of n slots: keys, factors, scopes, odd flags, each packed to n (the saved layout).
    const packed = new Uint8Array(n * 17);
    packed.set(meta.subarray(0, n * 8), 0);
    packed.set(meta.subarray(CHUNK * 8, CHUNK * 8 + n * 4), n * 8);
    packed.set(meta.subarray(CHUNK * 12, CHUNK * 12 + n * 4), n * 12);
    packed.set(this.odd.subarray(0, n), n * 16);
    parts.push(packed);
    this.counts.push(n);
    // Counting sort by dimension: each column lists its slots in ascending order, as `set` leaves them.
    const columns: Int32Array[] = [];
    for (let d = 0; d < dimension; d++) {
      const column = new Int32Array(perDimension[d]!);
      parts.push(new Uint8Array(column.buffer));
      columns.push(column);
    }
    const fill = new Uint32Array(dimension);
    for (let slot = 0; slot < n; slot++) {
      const start = starts[slot]!;
      const block = Math.floor(start / blockSize); // not bit operations: a position may pass 2^31
      const dims = dimBlocks[block]!;
      const values = valueBlocks[block]!;
      const from = start - block * blockSize;
      const to = from + (ends[slot]! - start);
      for (let e = from; e < to; e++) {
        const d = dims[e]!;
        columns[d]![fill[d]!++] = (slot << 8) | (values[e]! & 0xff);
      }
    }
    perDimension.fill(0);
    this.n = 0;
    this.block = 0;
    this.offset = 0;
  }
}

/**
 * Adds the codes table's vectors of rowids above `after` to the builder, in rowid order, at most
 * `limit` of them: batches of rows as one blob of their floats (group_concat of a UTF-8 file's blobs
 * keeps their bytes; the rowids and scope numbers come from the same rows in the same order), or row
 * by row in a file of another encoding or of many scopes. `ended`: no row is left above `last`.
 */
export function readSparseRows(
  db: Database.Database,
  builder: SparseBuilder,
  after = Number.NEGATIVE_INFINITY,
  limit = Number.POSITIVE_INFINITY,
): { last: number | undefined; ended: boolean } {
  const from = Number.isFinite(after) ? after : -(2 ** 63);
  const bounded = Number.isFinite(limit);
  const range = `FROM ${CODES_TABLE} WHERE rowid > ? ORDER BY rowid${bounded ? ` LIMIT ${limit}` : ''}`;
  // The file's scopes, from the scope index (~10 ms at 100k; those of the slice's rows alone took ~130).
  const scopes = db.prepare(`SELECT DISTINCT tenant, namespace FROM ${CODES_TABLE}`).raw().all() as [string, string][];
  let last: number | undefined;
  let read = 0;
  if (db.pragma('encoding', { simple: true }) !== 'UTF-8' || scopes.length > BUILD_SCOPES) {
    const rows = db.prepare(`SELECT rowid, tenant, namespace, embedding ${range}`).raw().iterate(from) as Iterable<
      [number, string, string, Buffer]
    >;
    for (const [rowid, tenant, namespace, embedding] of rows) {
      builder.add(rowid, builder.scope(tenant, namespace), embedding);
      last = rowid;
      read++;
    }
    return { last, ended: read < limit };
  }
  const ids = scopes.map(([tenant, namespace]) => builder.scope(tenant, namespace));
  const cases = ids.map((id) => `WHEN tenant = ? AND namespace = ? THEN ${id}`).join(' ');
  const batch = db
    .prepare(
      `SELECT count(*), max(rowid), group_concat(rowid), group_concat(scope), CAST(group_concat(embedding, x'') AS BLOB) ` +
        `FROM (SELECT rowid, CASE ${cases} END AS scope, embedding FROM ${CODES_TABLE} WHERE rowid > ? ORDER BY rowid LIMIT ?)`,
    )
    .raw();
  const params = scopes.flat();
  const bytes = builder.dimension * 4;
  let cursor = from;
  while (read < limit) {
    const [count, max, rowids, scopeIds, blob] = batch.get(...params, cursor, Math.min(BUILD_BATCH, limit - read)) as [
      number,
      number | null,
      string | null,
      string | null,
      Buffer | null,
    ];
    if (count === 0 || max === null) return { last, ended: true };
    const keys = rowids!.split(',');
    const scopeOf = scopeIds?.split(',') ?? [];
    if (keys.length !== count || scopeOf.length !== count || blob?.length !== count * bytes)
      throw new Error(`A vector of vector_codes is not of ${builder.dimension} dimensions (or has no scope).`);
    for (let i = 0; i < count; i++) builder.add(Number(keys[i]), Number(scopeOf[i]), blob, i * bytes);
    cursor = last = max;
    read += count;
  }
  // Exactly `limit` read: ended only if no row follows.
  const more = db.prepare(`SELECT 1 FROM ${CODES_TABLE} WHERE rowid > ? LIMIT 1`).get(cursor);
  return { last, ended: !more };
}

/** The first slice of a build (the whole index when the table holds at most `limit` vectors). */
export function buildSparse(
  db: Database.Database,
  dimension: number,
  limit = CHUNK,
): ReturnType<SparseBuilder['finish']> {
  const builder = new SparseBuilder(dimension);
  const { last, ended } = readSparseRows(db, builder, undefined, limit);
  return builder.finish(ended || last === undefined ? Number.POSITIVE_INFINITY : last);
}

/**
 * One more slice of a build not finished, appended to the file's save in one transaction under
 * the write lock: the vectors of the next `limit` rowids above its `through` (as they are now)
 * become a chunk of their own, the header lists it and moves `through` on (or says the build is
 * done). Its generation stays: a change logged since it to a rowid of the new chunk is re-read by
 * the next load, as any change is. False when there is nothing to do or another process holds the
 * lock (a search does not wait for it); parts of a save no reader knows yet are never read, and a
 * reader of the shorter header still finds all of its parts (same save).
 */
export function extendSparseSave(db: Database.Database, dimension: number, limit = CHUNK): boolean {
  if (db.inTransaction) return false;
  if (!beginImmediateNow(db)) return false;
  try {
    const row = db.prepare('SELECT save, data FROM dense_snapshot WHERE id = 1').get() as
      | { save: number; data: Buffer }
      | undefined;
    const saved = row && partialHeader(row.data);
    if (!row || !saved || saved.dimension !== dimension) {
      db.prepare('ROLLBACK').run();
      return false;
    }
    const builder = new SparseBuilder(dimension);
    for (const [tenant, namespace] of saved.scopes) builder.scope(tenant, namespace);
    const { last, ended } = readSparseRows(db, builder, saved.through, limit);
    const { parts } = builder.finish();
    const insert = db.prepare('INSERT INTO dense_parts (part, save, data) VALUES (?, ?, ?)');
    const first = saved.chunks.length * (1 + dimension);
    for (const [n, bytes] of parts.entries())
      insert.run(first + n, row.save, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    const through = ended ? Number.POSITIVE_INFINITY : last!;
    const header = sparseHeader(dimension, [...saved.chunks, ...builder.chunkCounts], builder.scopeNames, through);
    db.prepare('UPDATE dense_snapshot SET data = ? WHERE id = 1').run(Buffer.from(header));
    db.prepare('COMMIT').run();
    return true;
  } catch (error) {
    if (db.inTransaction) db.prepare('ROLLBACK').run();
    throw error;
  }
}

/** A saved header of a build not finished, or undefined. */
export function partialHeader(
  data: Uint8Array,
): { dimension: number; chunks: number[]; scopes: [string, string][]; through: number } | undefined {
  try {
    const saved = JSON.parse(new TextDecoder().decode(data)) as {
      format?: unknown;
      dimension: number;
      chunks: number[];
      scopes: [string, string][];
      through: number;
    };
    if (saved?.format !== SPARSE_PARTIAL_FORMAT || !Number.isSafeInteger(saved.through)) return undefined;
    if (!Array.isArray(saved.chunks) || !Array.isArray(saved.scopes)) return undefined;
    return saved;
  } catch {
    return undefined;
  }
}
