import { CHUNK, sparseHeader } from './sparse-index';

/** A row of the codes table as the build reads it: rowid, tenant, namespace, float vector blob. */
export type SparseRow = [number, string, string, Uint8Array];

/**
 * A SparseIndex's saved parts (`SparseIndex.toParts` layout) built straight from rows in ascending
 * rowid order, one chunk at a time: each chunk's vectors are quantized into one reused row-major
 * buffer (dimension and int8 value per non-zero component), which a counting sort by dimension turns
 * into that chunk's column parts. Nothing is kept per vector but the parts (3 bytes a non-zero
 * component, ~17 a vector of metadata): no per-dimension growing arrays, no int32 copy of every
 * column, no second pass over them to save. `SparseIndex.fromParts` over the result is the index
 * (columns decoded when queries need them) and `toParts` of it, unchanged, gives the parts back for
 * the save. Quantizes as `SparseIndex.set` does.
 */
export function buildSparseParts(
  dimension: number,
  rows: Iterable<SparseRow>,
): { header: Uint8Array; parts: Uint8Array[]; size: number } {
  const floats = new Float32Array(dimension);
  const floatBytes = new Uint8Array(floats.buffer);
  const parts: Uint8Array[] = [];
  const counts: number[] = [];
  const scopeList: { tenant: string; namespace: string }[] = [];
  const scopeIds = new Map<string, Map<string, number>>();
  let lastTenant: string | undefined;
  let lastNamespace: string | undefined;
  let lastScope = 0;
  // The chunk being built: its slots' metadata, and their non-zero components row by row.
  const meta = new Uint8Array(CHUNK * 17);
  const keys = new Float64Array(meta.buffer, 0, CHUNK);
  const factors = new Float32Array(meta.buffer, CHUNK * 8, CHUNK);
  const scopes = new Uint32Array(meta.buffer, CHUNK * 12, CHUNK);
  const odd = meta.subarray(CHUNK * 16, CHUNK * 17);
  const starts = new Uint32Array(CHUNK + 1);
  const perDimension = new Uint32Array(dimension);
  let dims = new Uint16Array(CHUNK * 96);
  let values = new Int8Array(CHUNK * 96);
  let n = 0;
  let entries = 0;
  let previous = Number.NEGATIVE_INFINITY;
  let size = 0;

  const finish = () => {
    // Metadata of n slots: keys, factors, scopes, odd flags, each packed to n (the saved layout).
    const packed = new Uint8Array(n * 17);
    packed.set(new Uint8Array(meta.buffer, 0, n * 8), 0);
    packed.set(new Uint8Array(meta.buffer, CHUNK * 8, n * 4), n * 8);
    packed.set(new Uint8Array(meta.buffer, CHUNK * 12, n * 4), n * 12);
    packed.set(odd.subarray(0, n), n * 16);
    parts.push(packed);
    counts.push(n);
    // Counting sort by dimension: each column lists its slots in ascending order, as `set` leaves them.
    const columnSlots: Uint16Array[] = [];
    const columnValues: Int8Array[] = [];
    for (let d = 0; d < dimension; d++) {
      const length = perDimension[d]!;
      const bytes = new Uint8Array(length * 3);
      parts.push(bytes);
      columnSlots.push(new Uint16Array(bytes.buffer, 0, length));
      columnValues.push(new Int8Array(bytes.buffer, length * 2, length));
    }
    const fill = new Uint32Array(dimension);
    for (let slot = 0; slot < n; slot++) {
      for (let e = starts[slot]!; e < starts[slot + 1]!; e++) {
        const d = dims[e]!;
        const j = fill[d]!++;
        columnSlots[d]![j] = slot;
        columnValues[d]![j] = values[e]!;
      }
    }
    perDimension.fill(0);
    n = 0;
    entries = 0;
  };

  for (const [rowid, tenant, namespace, blob] of rows) {
    if (blob.length !== dimension * 4) throw new Error(`SparseIndex takes ${dimension} dimensions.`);
    if (!(rowid > previous)) throw new Error('buildSparseParts takes rows in ascending rowid order.');
    previous = rowid;
    if (n === CHUNK) finish(); // its metadata copied into its part: the buffers are reused
    if (entries + dimension > dims.length) {
      const grownDims = new Uint16Array(dims.length * 2);
      grownDims.set(dims);
      dims = grownDims;
      const grownValues = new Int8Array(values.length * 2);
      grownValues.set(values);
      values = grownValues;
    }
    floatBytes.set(blob); // one copy into an aligned scratch vector: no Float32Array a row
    let max = 0;
    let norm = 0;
    for (let d = 0; d < dimension; d++) {
      const x = floats[d]!;
      norm += x * x;
      const m = Math.abs(x);
      if (m > max) max = m;
    }
    const scale = max > 0 ? 127 / max : 0;
    const ok = max > 0 && Number.isFinite(norm) && norm > 0 && Number.isFinite(scale);
    keys[n] = rowid;
    factors[n] = ok ? 1 / (scale * Math.sqrt(norm)) : 0;
    odd[n] = ok ? 0 : 1;
    if (tenant !== lastTenant || namespace !== lastNamespace) {
      let byNamespace = scopeIds.get(tenant);
      if (!byNamespace) {
        byNamespace = new Map();
        scopeIds.set(tenant, byNamespace);
      }
      let id = byNamespace.get(namespace);
      if (id === undefined) {
        id = scopeList.length;
        scopeList.push({ tenant, namespace });
        byNamespace.set(namespace, id);
      }
      lastTenant = tenant;
      lastNamespace = namespace;
      lastScope = id;
    }
    scopes[n] = lastScope;
    starts[n] = entries;
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
    starts[n + 1] = entries;
    n++;
    size++;
  }
  if (n > 0) finish();
  return { header: sparseHeader(dimension, counts, scopeList), parts, size };
}
