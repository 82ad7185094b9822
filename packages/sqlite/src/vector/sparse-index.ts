import { BinaryPartError } from '@agentmem/core';

/**
 * Slots per chunk: a column entry holds its slot in 16 bits (and its int8 value). At 1M vectors, 16 chunks: a
 * query of 15 non-zero dimensions reads ~240 column parts on a cold start (~36 KB each with the
 * hashing embedder), not the whole index. (Format 1 had chunks of 16,384: ~4x the parts, each read
 * costing ~15 us of SQLite overflow pages and call overhead whatever its size.)
 */
export const CHUNK_BITS = 16;
export const CHUNK = 1 << CHUNK_BITS;
/**
 * A vector's int8 scale (127 / max |x|) into `out[0]` and the factor that turns its int8 dot product
 * back into a cosine into `out[1]`; false (both 0) for a vector with no direction (all zeros, or not
 * finite). The index and the builder quantize alike, so their saved parts are the same bytes; `out`
 * is the caller's, so that a row allocates nothing.
 */
export function int8Scaling(v: Float32Array, dimension: number, out: Float64Array): boolean {
  let max = 0;
  let norm = 0;
  for (let d = 0; d < dimension; d++) {
    const x = v[d]!;
    norm += x * x;
    const m = Math.abs(x);
    if (m > max) max = m;
  }
  return int8Factors(max, norm, out);
}

/**
 * int8Scaling's result from a pass's maximum magnitude and squared norm, for a caller that makes the
 * pass itself (the builder lists the non-zero components in it: ./sparse-build). One arithmetic for
 * both, so the index and the builder save the same bytes. `out`: [scale, factor]; false when the
 * vector has no int8 copy (zero or not finite).
 */
export function int8Factors(max: number, norm: number, out: Float64Array): boolean {
  const scale = max > 0 ? 127 / max : 0;
  const ok = max > 0 && Number.isFinite(norm) && norm > 0 && Number.isFinite(scale);
  out[0] = ok ? scale : 0;
  out[1] = ok ? 1 / (scale * Math.sqrt(norm)) : 0;
  return ok;
}

/** Version of the saved layout: another one is not read (the table is, and the index saved again). */
export const SPARSE_FORMAT = 'agentmem-sparse-2';
/**
 * The same layout, of a build not finished: it holds the vectors of rowids up to its `through` only
 * (built a chunk at a time, sparse-build.ts); a search scans the rest. Its own name, so that a
 * reader that does not know `through` builds the index again rather than missing those vectors.
 */
export const SPARSE_PARTIAL_FORMAT = 'agentmem-sparse-2-partial';
/**
 * Added to every bound: sqlite-vec computes the exact cosine in float32 (~1e-6 off the float64 one
 * the bounds are about); a wider margin only adds a few candidates.
 */
const FLOAT_MARGIN = 1e-4;

/** What a restored index reads later: a saved part by number (throws BinaryPartError when it is gone). */
export interface SavedParts {
  part(n: number): Uint8Array;
}

interface Chunk {
  /** Slots used. */
  n: number;
  keys: Float64Array;
  /** 1 / (scale * norm): turns the int8 dot product with a query into its cosine times the query's norm. */
  factors: Float32Array;
  scopes: Uint32Array;
  /** 1: removed (or replaced by a later slot); its entries stay in the columns until the next save. */
  dead: Uint8Array;
  /** Slots marked dead. */
  removed: number;
  /** 1: a vector whose bounds say nothing (zero or not finite): always a candidate. */
  odd: Uint8Array;
  /**
   * Per dimension, the slots whose component is not zero, each with its int8 value (scaled so that the
   * vector's largest magnitude is 127): undefined while a restored chunk's column is not read.
   */
  columns: (Column | undefined)[];
  /** Restored: the number of its first column part (part + 1 + d). */
  part?: number;
}

/** Entries `slot << 8 | value & 0xff`: one load per entry in the query's loop (two arrays cost ~1.5x). */
interface Column {
  packed: Int32Array;
  length: number;
}

/**
 * The exact nearest-neighbour index of sparse vectors (the lexical `HashingEmbedder`'s: ~20% of the
 * components non-zero), whose signs cannot rank them (`isSparse`). Each vector is kept as int8
 * components in per-dimension columns, so a query reads only the columns of its own non-zero
 * dimensions (~15 of 384 for a short query) and scores every vector from them. Each int8 score
 * comes with a bound on its rounding error: `candidates` returns every vector whose upper bound
 * reaches the m-th best lower bound, a superset of the exact top m, which the caller scores exactly
 * (sqlite-vec) — the results are those of a full scan. Keys are SQLite rowids.
 */
export class SparseIndex {
  private readonly chunks: Chunk[] = [];
  private readonly scopeIds = new Map<string, number>();
  private readonly scopeList: { tenant: string; namespace: string }[] = [];
  /** Slots [0, sorted) hold ascending keys (a load in rowid order, or a restore): found by binary search. */
  private sorted = 0;
  private total = 0;
  private live = 0;
  /** Keys of the slots placed after the sorted ones. */
  private readonly tail = new Map<number, number>();
  private source: SavedParts | undefined;
  private readonly acc = new Float64Array(CHUNK);
  /** Scratch of `candidates`: the slots whose upper bound reached the floor of their time, with it. */
  private readonly kept: Kept = { slots: new Int32Array(1024), uppers: new Float64Array(1024), length: 0 };
  /** The header it was restored from, while no write changed it since: its parts are then the source's. */
  private header: Uint8Array | undefined;

  /** int8Scaling's output for `set`. */
  private readonly scaling = new Float64Array(2);
  /**
   * Keys above it are not held (a build not finished: their vectors are scanned), and `set` of one
   * is ignored: they come from the table as one chunk when the build reaches them.
   */
  through = Number.POSITIVE_INFINITY;

  constructor(readonly dimension: number) {}

  /** Live vectors. */
  get size(): number {
    return this.live;
  }

  /** Never: a sparse index takes the floats (`set`), not a stored code. */
  readonly encodedBytes = -1;

  /** Adds or replaces the vector of `key`. */
  set(key: number, tenant: string, namespace: string, vector: Float32Array): void {
    if (vector.length !== this.dimension) throw new Error(`SparseIndex takes ${this.dimension} dimensions.`);
    if (key > this.through) return;
    this.header = undefined;
    // Appended in key order (a load in rowid order, new rows): no earlier slot can hold it.
    let appended =
      this.tail.size === 0 && this.sorted === this.total && (this.total === 0 || key > this.keyAt(this.total - 1));
    const last = this.chunks[this.total >>> CHUNK_BITS];
    if (last && last.part !== undefined) {
      // A restored chunk's columns grow only once all read (384 parts): new slots start a chunk of
      // their own instead, the rest of the restored one left unused (slots past its n).
      this.total = this.chunks.length << CHUNK_BITS;
      appended = false;
    }
    if (!appended) this.remove(key);
    const slot = this.total++;
    const c = slot >>> CHUNK_BITS;
    let chunk = this.chunks[c];
    if (!chunk) {
      chunk = emptyChunk(this.dimension);
      this.chunks.push(chunk);
    }
    const at = slot & (CHUNK - 1);
    chunk.n = at + 1;
    chunk.keys[at] = key;
    chunk.scopes[at] = this.scopeId(tenant, namespace);
    const ok = int8Scaling(vector, vector.length, this.scaling);
    const scale = this.scaling[0]!;
    chunk.factors[at] = this.scaling[1]!;
    chunk.odd[at] = ok ? 0 : 1;
    if (ok)
      for (let d = 0; d < vector.length; d++) {
        const x = vector[d]!;
        if (x === 0) continue;
        const q = Math.round(x * scale);
        if (q !== 0) push(chunk.columns[d]!, at, q);
      }
    // Still ascending (a load in rowid order): the slot joins the sorted run, found without a map entry.
    if (appended) this.sorted++;
    else this.tail.set(key, slot);
    this.live++;
  }

  remove(key: number): void {
    const slot = this.find(key);
    if (slot === undefined) return;
    this.tail.delete(key);
    this.header = undefined;
    const chunk = this.chunks[slot >>> CHUNK_BITS]!;
    chunk.dead[slot & (CHUNK - 1)] = 1;
    chunk.removed++;
    this.live--;
  }

  /**
   * Keys of a superset of the `m` vectors of the scope nearest to `query` by cosine (every vector
   * that might rank among them given its int8 rounding), or undefined for a zero query (the caller
   * scans). Reads the columns of the query's non-zero dimensions not read yet.
   */
  candidates(
    query: Float32Array,
    scope: { tenant: string | null; namespaces?: readonly string[] },
    m: number,
  ): number[] | undefined {
    const dims: number[] = [];
    let norm = 0;
    let l1 = 0;
    for (let d = 0; d < query.length; d++) {
      const x = query[d]!;
      if (x === 0) continue;
      dims.push(d);
      norm += x * x;
      l1 += Math.abs(x);
    }
    norm = Math.sqrt(norm);
    if (!(norm > 0) || !Number.isFinite(l1)) return undefined;
    const allowed = this.allowedScopes(scope);
    // Rounding a component moves it by at most half a step (1 / scale): the dot product by at most
    // 0.5 * |q|_1 / scale, the cosine by that over both norms, i.e. 0.5 * |q|_1 / |q| * factor.
    const spread = (0.5 * l1) / norm;
    const kept = this.kept;
    kept.length = 0;
    const every = allowed.every((a) => a === 1);
    const heap = new MinHeap(Math.max(1, m));
    const acc = this.acc;
    for (let c = 0; c < this.chunks.length; c++) {
      const chunk = this.chunks[c]!;
      const n = chunk.n;
      acc.fill(0, 0, n);
      for (const d of dims) {
        const { packed, length } = this.column(chunk, d);
        accumulate(acc, packed, length, query[d]!);
      }
      // Every slot of the chunk is in the scope (one tenant's file, no removal since the load): no test a slot.
      const check = !every || chunk.removed > 0;
      bound(chunk, c << CHUNK_BITS, check, allowed, acc, 1 / norm, spread, kept, heap);
    }
    // The m-th best lower bound: at least m vectors score that much, so none below it ranks in the top m.
    const floor = heap.full ? heap.min : Number.NEGATIVE_INFINITY;
    const out: number[] = [];
    for (let j = 0; j < kept.length; j++) if (kept.uppers[j]! >= floor) out.push(this.keyAt(kept.slots[j]!));
    return out;
  }

  /**
   * The index as a small header and parts: per chunk, a part of its keys (ascending), factors and
   * scopes, then one part per dimension of its column. Removed slots are left out.
   */
  toParts(): { header: Uint8Array; parts: Uint8Array[] } {
    if (this.header) {
      // Unchanged since it was restored (or built, `buildSparseParts`): the saved parts as they are.
      const count = this.chunks.length * (1 + this.dimension);
      return { header: this.header, parts: Array.from({ length: count }, (_, n) => this.source!.part(n)) };
    }
    for (const chunk of this.chunks) this.readColumns(chunk);
    const order: number[] = [];
    this.chunks.forEach((chunk, c) => {
      for (let i = 0; i < chunk.n; i++) if (!chunk.dead[i]) order.push((c << CHUNK_BITS) + i);
    });
    order.sort((a, b) => this.keyAt(a) - this.keyAt(b));
    // Each slot's place in the saved order, and the range of saved chunks each chunk's slots go to
    // (one or two: slots are mostly in key order already).
    const position = new Int32Array(this.total).fill(-1);
    const reach = this.chunks.map(() => ({ from: Number.POSITIVE_INFINITY, to: -1 }));
    order.forEach((s, i) => {
      position[s] = i;
      const r = reach[s >>> CHUNK_BITS]!;
      r.from = Math.min(r.from, i >>> CHUNK_BITS);
      r.to = Math.max(r.to, i >>> CHUNK_BITS);
    });
    const parts: Uint8Array[] = [];
    const counts: number[] = [];
    for (let out = 0; out * CHUNK < order.length; out++) {
      const n = Math.min(CHUNK, order.length - out * CHUNK);
      counts.push(n);
      const meta = new Uint8Array(n * 17);
      const keys = new Float64Array(meta.buffer, 0, n);
      const factors = new Float32Array(meta.buffer, n * 8, n);
      const scopes = new Uint32Array(meta.buffer, n * 12, n);
      const odd = meta.subarray(n * 16, n * 17);
      for (let i = 0; i < n; i++) {
        const s = order[out * CHUNK + i]!;
        const chunk = this.chunks[s >>> CHUNK_BITS]!;
        const at = s & (CHUNK - 1);
        keys[i] = chunk.keys[at]!;
        factors[i] = chunk.factors[at]!;
        scopes[i] = chunk.scopes[at]!;
        odd[i] = chunk.odd[at]!;
      }
      parts.push(meta);
      const columns = emptyChunk(this.dimension).columns as Column[];
      for (let c = 0; c < this.chunks.length; c++) {
        if (reach[c]!.from > out || reach[c]!.to < out) continue;
        const chunk = this.chunks[c]!;
        for (let d = 0; d < this.dimension; d++) {
          const column = chunk.columns[d]!;
          for (let j = 0; j < column.length; j++) {
            const entry = column.packed[j]!;
            const p = position[(c << CHUNK_BITS) + (entry >> 8)]!;
            if (p >= 0 && p >>> CHUNK_BITS === out) push(columns[d]!, p & (CHUNK - 1), (entry << 24) >> 24);
          }
        }
      }
      // Slots from more than one chunk (changed vectors moved to the end): the column in slot order
      // again, as a build leaves it (entries `slot << 8 | value`: numeric order is slot order).
      const sources = reach.filter((r) => r.from <= out && r.to >= out).length;
      for (const column of columns) {
        if (sources > 1) column.packed.subarray(0, column.length).sort();
        // Saved as the entries are kept (little-endian int32): a read is a view or one copy, no conversion.
        parts.push(new Uint8Array(column.packed.slice(0, column.length).buffer));
      }
    }
    return { header: sparseHeader(this.dimension, counts, this.scopeList, this.through), parts };
  }

  /**
   * Its parts were just saved as they are (`toParts` of an unchanged index): read them from `source`
   * from now on, so that a built index stops holding them all in memory. False when it changed.
   */
  rebase(source: SavedParts): boolean {
    if (!this.header) return false;
    this.source = source;
    return true;
  }

  /**
   * Whether `header` is a saved SparseIndex's (else it may be a BinaryIndex's), of this layout or
   * another (`fromParts` then throws: the caller builds it again).
   */
  static isHeader(header: Uint8Array): boolean {
    return SparseIndex.headerFormat(header)?.startsWith('agentmem-sparse-') === true;
  }

  /** The `format` a saved dense or sparse index's header names (a blob, or text as SQLite may give it), or undefined. */
  static headerFormat(header: Uint8Array | string): string | undefined {
    try {
      const text = typeof header === 'string' ? header : new TextDecoder().decode(header);
      const format = (JSON.parse(text) as { format?: unknown })?.format;
      return typeof format === 'string' ? format : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * An index from `toParts`' header: every chunk's keys part is read now, each column part when a
   * query first needs it (`source.part` throws BinaryPartError when it is gone: then the caller loads
   * again). A header or part that does not decode throws.
   */
  static fromParts(header: Uint8Array, source: SavedParts): SparseIndex {
    const saved = JSON.parse(new TextDecoder().decode(header)) as {
      format: string;
      dimension: number;
      chunks: number[];
      scopes: [string, string][];
      through?: number;
    };
    const partial = saved?.format === SPARSE_PARTIAL_FORMAT;
    if ((saved?.format !== SPARSE_FORMAT && !partial) || !(saved.dimension > 0) || !Array.isArray(saved.chunks))
      throw new Error('Not a saved SparseIndex header.');
    if (partial && !Number.isSafeInteger(saved.through))
      throw new Error('A partial SparseIndex header needs `through`.');
    const index = new SparseIndex(saved.dimension);
    if (partial) index.through = saved.through!;
    for (const [tenant, namespace] of saved.scopes) index.scopeId(tenant, namespace);
    let part = 0;
    for (const n of saved.chunks) {
      if (!(n > 0 && n <= CHUNK)) throw new Error('Bad chunk.');
      const bytes = source.part(part);
      if (bytes.length !== n * 17) throw new Error(`Saved part ${part} has the wrong size.`);
      const copy = new Uint8Array(n * 17);
      copy.set(bytes);
      const chunk = emptyChunk(saved.dimension, false);
      chunk.n = n;
      chunk.keys.set(new Float64Array(copy.buffer, 0, n));
      chunk.factors.set(new Float32Array(copy.buffer, n * 8, n));
      chunk.scopes.set(new Uint32Array(copy.buffer, n * 12, n));
      chunk.odd.set(copy.subarray(n * 16));
      chunk.part = part;
      index.chunks.push(chunk);
      index.live += n;
      part += 1 + saved.dimension;
    }
    // Slots are numbered per chunk (chunk << CHUNK_BITS | slot): a chunk of a build slice may hold
    // fewer than CHUNK before the next one (a save rewritten after removals, then a slice appended).
    const last = index.chunks.length - 1;
    index.total = last < 0 ? 0 : (last << CHUNK_BITS) + index.chunks[last]!.n;
    index.sorted = index.total;
    index.source = source;
    index.header = header;
    return index;
  }

  private column(chunk: Chunk, d: number): Column {
    let column = chunk.columns[d];
    if (column) return column;
    const bytes = this.source!.part(chunk.part! + 1 + d);
    if (bytes.length % 4 !== 0) throw new BinaryPartError(`Saved part ${chunk.part! + 1 + d} has the wrong size.`);
    const length = bytes.length / 4;
    // A part as SQLite hands it over is a buffer of its own (aligned): its entries are used in place.
    const packed =
      bytes.byteOffset % 4 === 0
        ? new Int32Array(bytes.buffer, bytes.byteOffset, length)
        : new Int32Array(bytes.slice().buffer, 0, length);
    column = { packed, length };
    chunk.columns[d] = column;
    return column;
  }

  private readColumns(chunk: Chunk): void {
    if (chunk.part === undefined) return;
    for (let d = 0; d < this.dimension; d++) this.column(chunk, d);
    chunk.part = undefined;
  }

  private keyAt(slot: number): number {
    return this.chunks[slot >>> CHUNK_BITS]!.keys[slot & (CHUNK - 1)]!;
  }

  /** The live slot of `key`. */
  private find(key: number): number | undefined {
    const t = this.tail.get(key);
    if (t !== undefined) return t;
    if (this.sorted === 0) return undefined;
    // The sorted run: whole chunks (not all full: see fromParts), then the head of one. Its chunk
    // first (the last whose first key is not above it), then the slot in it.
    let c = 0;
    let top = (this.sorted - 1) >>> CHUNK_BITS;
    while (c < top) {
      const mid = (c + top + 1) >>> 1;
      if (this.chunks[mid]!.keys[0]! <= key) c = mid;
      else top = mid - 1;
    }
    const chunk = this.chunks[c]!;
    let lo = 0;
    let hi = Math.min(chunk.n, this.sorted - (c << CHUNK_BITS)) - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const k = chunk.keys[mid]!;
      if (k === key) return chunk.dead[mid] ? undefined : (c << CHUNK_BITS) + mid;
      if (k < key) lo = mid + 1;
      else hi = mid - 1;
    }
    return undefined;
  }

  private scopeId(tenant: string, namespace: string): number {
    const name = `${tenant}\u0000${namespace}`;
    let id = this.scopeIds.get(name);
    if (id === undefined) {
      id = this.scopeList.length;
      this.scopeList.push({ tenant, namespace });
      this.scopeIds.set(name, id);
    }
    return id;
  }

  /** 1 for each scope id the query asks for. */
  private allowedScopes(scope: { tenant: string | null; namespaces?: readonly string[] }): Uint8Array {
    const namespaces = scope.namespaces ? new Set(scope.namespaces) : undefined;
    const out = new Uint8Array(this.scopeList.length);
    this.scopeList.forEach((s, id) => {
      if (scope.tenant !== null && s.tenant !== scope.tenant) return;
      if (namespaces && !namespaces.has(s.namespace)) return;
      out[id] = 1;
    });
    return out;
  }
}

/** The saved header: the layout's version, the chunks' sizes and the scopes their ids stand for. */
export function sparseHeader(
  dimension: number,
  chunks: readonly number[],
  scopes: readonly { tenant: string; namespace: string }[],
  through = Number.POSITIVE_INFINITY,
): Uint8Array {
  const partial = through !== Number.POSITIVE_INFINITY;
  const header = {
    format: partial ? SPARSE_PARTIAL_FORMAT : SPARSE_FORMAT,
    dimension,
    chunks,
    scopes: scopes.map((s) => [s.tenant, s.namespace]),
    ...(partial ? { through } : {}),
  };
  return new TextEncoder().encode(JSON.stringify(header));
}

/** acc[slot] += q * value over a column: the hot loop, kept monomorphic in its own function. */
function accumulate(acc: Float64Array, packed: Int32Array, length: number, q: number): void {
  for (let j = 0; j < length; j++) {
    const entry = packed[j]!;
    acc[entry >> 8]! += q * ((entry << 24) >> 24);
  }
}

/** Slots kept by `bound`, with their upper bounds. */
interface Kept {
  slots: Int32Array;
  uppers: Float64Array;
  length: number;
}

/**
 * Each slot's lower bound offered to the heap; the slot kept when its upper bound reaches the heap's
 * floor so far (the floor only rises: a slot below it now is below the final one). No array of every
 * slot's bound and no second pass over them: at 1M, ~1M stores and reads less a query.
 */
function bound(
  chunk: Chunk,
  base: number,
  check: boolean,
  allowed: Uint8Array,
  acc: Float64Array,
  inverseNorm: number,
  spread: number,
  kept: Kept,
  heap: MinHeap,
): void {
  const { n, dead, scopes, odd, factors } = chunk;
  // The heap's floor, kept here: most slots fall below it and are not offered.
  let floor = heap.full ? heap.min : Number.NEGATIVE_INFINITY;
  for (let i = 0; i < n; i++) {
    if (check && (dead[i] || !allowed[scopes[i]!])) continue; // not in the scope: never a candidate
    let up = Number.POSITIVE_INFINITY; // odd: no bounds, always a candidate
    if (!odd[i]) {
      const f = factors[i]!;
      const score = acc[i]! * f * inverseNorm;
      const e = spread * f + FLOAT_MARGIN;
      up = score + e;
      if (score - e > floor) {
        heap.offer(score - e);
        if (heap.full) floor = heap.min;
      }
    }
    if (up >= floor) keep(kept, base + i, up); // false for NaN
  }
}

function keep(kept: Kept, slot: number, upper: number): void {
  if (kept.length === kept.slots.length) {
    const slots = new Int32Array(kept.length * 2);
    slots.set(kept.slots);
    kept.slots = slots;
    const uppers = new Float64Array(kept.length * 2);
    uppers.set(kept.uppers);
    kept.uppers = uppers;
  }
  kept.slots[kept.length] = slot;
  kept.uppers[kept.length++] = upper;
}

function emptyChunk(dimension: number, columns = true): Chunk {
  return {
    n: 0,
    keys: new Float64Array(CHUNK),
    factors: new Float32Array(CHUNK),
    scopes: new Uint32Array(CHUNK),
    dead: new Uint8Array(CHUNK),
    removed: 0,
    odd: new Uint8Array(CHUNK),
    columns: Array.from({ length: dimension }, () => (columns ? { packed: new Int32Array(64), length: 0 } : undefined)),
  };
}

function push(column: Column, slot: number, value: number): void {
  if (column.length === column.packed.length) {
    const packed = new Int32Array(Math.min(CHUNK, column.packed.length * 2));
    packed.set(column.packed);
    column.packed = packed;
  }
  column.packed[column.length++] = (slot << 8) | (value & 0xff);
}

/** The `size` largest numbers offered; `min` the smallest of them once full. */
class MinHeap {
  private readonly items: Float64Array;
  private n = 0;
  constructor(private readonly size: number) {
    this.items = new Float64Array(size);
  }
  get full(): boolean {
    return this.n === this.size;
  }
  get min(): number {
    return this.items[0]!;
  }
  offer(x: number): void {
    const h = this.items;
    if (this.n < this.size) {
      let i = this.n++;
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (h[p]! <= x) break;
        h[i] = h[p]!;
        i = p;
      }
      h[i] = x;
      return;
    }
    if (x <= h[0]!) return;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= this.n) break;
      const r = l + 1;
      const c = r < this.n && h[r]! < h[l]! ? r : l;
      if (h[c]! >= x) break;
      h[i] = h[c]!;
      i = c;
    }
    h[i] = x;
  }
}
