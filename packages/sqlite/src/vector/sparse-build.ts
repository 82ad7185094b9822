import { CHUNK, int8Scaling, sparseHeader } from './sparse-index';

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
  private readonly starts = new Uint32Array(CHUNK + 1);
  private readonly perDimension: Uint32Array;
  private dims = new Uint16Array(CHUNK * 96);
  private values = new Int8Array(CHUNK * 96);
  private n = 0;
  private entries = 0;
  private previous = Number.NEGATIVE_INFINITY;
  /** Vectors added. */
  size = 0;
  /** int8Scaling's output for `add`. */
  private readonly scaling = new Float64Array(2);

  constructor(readonly dimension: number) {
    this.floats = new Float32Array(dimension);
    this.floatBytes = new Uint8Array(this.floats.buffer);
    this.perDimension = new Uint32Array(dimension);
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
    const { dimension, floats } = this;
    if (!(key > this.previous)) throw new Error('SparseBuilder takes keys in ascending order.');
    if (!(scope < this.scopeList.length)) throw new Error('SparseBuilder: unknown scope.');
    this.previous = key;
    if (this.n === CHUNK) this.finishChunk(); // its metadata copied into its part: the buffers are reused
    if (this.entries + dimension > this.dims.length) {
      const dims = new Uint16Array(this.dims.length * 2);
      dims.set(this.dims);
      this.dims = dims;
      const values = new Int8Array(this.values.length * 2);
      values.set(this.values);
      this.values = values;
    }
    // One copy into an aligned scratch vector: no Float32Array a row.
    this.floatBytes.set(bytes.subarray(offset, offset + dimension * 4));
    const ok = int8Scaling(floats, dimension, this.scaling);
    const scale = this.scaling[0]!;
    const n = this.n;
    this.keys[n] = key;
    this.factors[n] = this.scaling[1]!;
    this.odd[n] = ok ? 0 : 1;
    this.scopes[n] = scope;
    const { dims, values, perDimension } = this;
    let entries = this.entries;
    this.starts[n] = entries;
    if (ok)
      for (let d = 0; d < dimension; d++) {
        const x = floats[d]!;
        if (x === 0) continue;
        const q = Math.round(x * scale);
        if (q === 0) continue;
        dims[entries] = d;
        values[entries++] = q;
        perDimension[d]!++;
      }
    this.starts[n + 1] = entries;
    this.entries = entries;
    this.n = n + 1;
    this.size++;
  }

  /** The header and parts of what was added. */
  finish(): { header: Uint8Array; parts: Uint8Array[]; size: number } {
    if (this.n > 0) this.finishChunk();
    return { header: sparseHeader(this.dimension, this.counts, this.scopeList), parts: this.parts, size: this.size };
  }

  private finishChunk(): void {
    const { n, meta, dimension, parts, dims, values, starts, perDimension } = this;
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
      for (let e = starts[slot]!; e < starts[slot + 1]!; e++) {
        const d = dims[e]!;
        columns[d]![fill[d]!++] = (slot << 8) | (values[e]! & 0xff);
      }
    }
    perDimension.fill(0);
    this.n = 0;
    this.entries = 0;
  }
}
