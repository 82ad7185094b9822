/**
 * Sign-bit (binary-quantized) codes of vectors, grouped by (tenant,
 * namespace), searched by Hamming distance: a scan of 48 bytes per 384-dim
 * vector instead of 1,536, used to pick a candidate pool that is then rescored
 * exactly with the float vectors. Keys are the caller's (SQLite rowids,
 * in-memory record ids).
 *
 * With `rescoring`, each code also keeps an int8 copy of its vector (one byte
 * per dimension and a scale), so the pool is ranked in memory by a near-exact
 * cosine (`ranked`) and the caller reads exact floats only for its head: for a
 * store whose floats live on disk that saves reading the whole pool.
 */
export class BinaryIndex<K> {
  /** 32-bit words per code. */
  readonly words: number;
  readonly rescoring: boolean;
  private readonly partitions = new Map<string, Partition<K>>();
  private readonly slots = new Map<K, { partition: Partition<K>; slot: number }>();
  private distances = new Uint16Array(0);
  /** The candidates the last scan chose: partition (index into its selection), slot, distance. */
  private chosenPartition = new Uint32Array(0);
  private chosenSlot = new Uint32Array(0);
  private chosenDistance = new Uint16Array(0);

  constructor(
    readonly dimension: number,
    options: { rescoring?: boolean } = {},
  ) {
    this.words = Math.ceil(dimension / 32);
    this.rescoring = options.rescoring ?? false;
  }

  get size(): number {
    return this.slots.size;
  }

  /** Bytes of one code as `encodeRescoring` writes it: sign words, the float32 factor, the int8 copy. */
  get encodedBytes(): number {
    return this.words * 4 + 4 + this.dimension;
  }

  /** Adds or replaces the code of `key` (and its int8 copy when rescoring). */
  set(key: K, tenant: string, namespace: string, vector: Float32Array): void {
    const { partition, slot } = this.place(key, tenant, namespace);
    const chunk = partition.chunks[slot >>> CHUNK_BITS]!;
    const at = slot & CHUNK_MASK;
    writeSigns(vector, chunk.codes, at * this.words, this.words);
    if (chunk.quantized) quantize(vector, chunk.quantized, at * this.dimension, chunk.factors!, at);
  }

  /**
   * Adds or replaces a code as `encodeRescoring` encoded it (signs, factor,
   * int8 copy: what a store persists so a load need not re-quantize). Needs
   * `rescoring`.
   */
  setEncoded(key: K, tenant: string, namespace: string, encoded: Uint8Array): void {
    const words = this.words;
    const d = this.dimension;
    if (!this.rescoring || encoded.length !== this.encodedBytes)
      throw new Error(`BinaryIndex.setEncoded takes encodeRescoring's ${this.encodedBytes} bytes.`);
    const { partition, slot } = this.place(key, tenant, namespace);
    const chunk = partition.chunks[slot >>> CHUNK_BITS]!;
    const at = slot & CHUNK_MASK;
    // Byte loops rather than typed-array views of the blob: no allocation per code.
    for (let w = 0, o = at * words; w < words; w++)
      chunk.codes[o + w] =
        encoded[4 * w]! | (encoded[4 * w + 1]! << 8) | (encoded[4 * w + 2]! << 16) | (encoded[4 * w + 3]! << 24);
    for (let i = 0; i < 4; i++) scratch.factorBytes[i] = encoded[words * 4 + i]!;
    chunk.factors![at] = scratch.factor[0]!;
    const q = chunk.quantized!;
    for (let j = 0, from = words * 4 + 4, o = at * d; j < d; j++) q[o + j] = encoded[from + j]!; // wraps to int8
  }

  /** The slot of `key` in its scope's partition, moved or created as needed. */
  private place(key: K, tenant: string, namespace: string): { partition: Partition<K>; slot: number } {
    const scope = `${tenant}\u0000${namespace}`;
    const at = this.slots.get(key);
    if (at && at.partition.scope === scope) return at;
    if (at) this.remove(key);
    let partition = this.partitions.get(scope);
    if (!partition) {
      partition = { scope, tenant, namespace, chunks: [], keys: [] };
      this.partitions.set(scope, partition);
    }
    const slot = partition.keys.length;
    const c = slot >>> CHUNK_BITS;
    const chunk = partition.chunks[c];
    if (!chunk) partition.chunks.push(this.chunk(c === 0 ? 64 : CHUNK));
    else if ((slot & CHUNK_MASK) >= chunk.capacity) partition.chunks[c] = this.grown(chunk);
    partition.keys.push(key);
    const placed = { partition, slot };
    this.slots.set(key, placed);
    return placed;
  }

  private chunk(capacity: number): Chunk {
    const chunk: Chunk = { capacity, codes: new Uint32Array(capacity * this.words) };
    if (this.rescoring) {
      chunk.quantized = new Int8Array(capacity * this.dimension);
      chunk.factors = new Float32Array(capacity);
    }
    return chunk;
  }

  /** A first chunk doubles up to CHUNK codes (small scopes stay small); later chunks are born full size. */
  private grown(chunk: Chunk): Chunk {
    const bigger = this.chunk(Math.min(CHUNK, chunk.capacity * 2));
    bigger.codes.set(chunk.codes);
    bigger.quantized?.set(chunk.quantized!);
    bigger.factors?.set(chunk.factors!);
    return bigger;
  }

  remove(key: K): void {
    const at = this.slots.get(key);
    if (!at) return;
    this.slots.delete(key);
    const { partition, slot } = at;
    const last = partition.keys.length - 1;
    if (slot !== last) {
      // Swap the last code into the hole: removal stays O(1).
      const moved = partition.keys[last]!;
      partition.keys[slot] = moved;
      const to = partition.chunks[slot >>> CHUNK_BITS]!;
      const from = partition.chunks[last >>> CHUNK_BITS]!;
      const t = slot & CHUNK_MASK;
      const f = last & CHUNK_MASK;
      const w = this.words;
      to.codes.set(from.codes.subarray(f * w, (f + 1) * w), t * w);
      if (to.quantized) {
        const d = this.dimension;
        to.quantized.set(from.quantized!.subarray(f * d, (f + 1) * d), t * d);
        to.factors![t] = from.factors![f]!;
      }
      this.slots.set(moved, { partition, slot });
    }
    partition.keys.pop();
    // A chunk left empty is dropped (the first one stays until the partition goes).
    if (last > 0 && (last & CHUNK_MASK) === 0) partition.chunks.pop();
    if (partition.keys.length === 0) this.partitions.delete(partition.scope);
  }

  clear(): void {
    this.partitions.clear();
    this.slots.clear();
  }

  /** How many codes the scope holds (tenant `null`: every tenant; no namespaces: all of them). */
  count(scope: { tenant: string | null; namespaces?: readonly string[] }): number {
    let n = 0;
    for (const p of this.select(scope)) n += p.keys.length;
    return n;
  }

  /**
   * The keys of the `m` codes nearest to the query's by Hamming distance (all
   * of them when the scope holds no more than `m`), nearest first.
   */
  nearest(query: Float32Array, scope: { tenant: string | null; namespaces?: readonly string[] }, m: number): K[] {
    const partitions = this.select(scope);
    const n = this.choose(query, partitions, m);
    const d = this.chosenDistance;
    const byDistance = Array.from({ length: n }, (_, i) => i).sort((a, b) => d[a]! - d[b]! || a - b);
    return byDistance.map((i) => partitions[this.chosenPartition[i]!]!.keys[this.chosenSlot[i]!]!);
  }

  /**
   * The `m` codes nearest to the query by Hamming distance, ranked by the
   * cosine of their int8 copies (best first, with those approximate scores):
   * near-exact, so the caller's exact rescoring only needs the head of the
   * list. Needs `rescoring`.
   */
  ranked(
    query: Float32Array,
    scope: { tenant: string | null; namespaces?: readonly string[] },
    m: number,
  ): { keys: K[]; scores: Float64Array } {
    if (!this.rescoring) throw new Error('BinaryIndex.ranked needs an index made with { rescoring: true }.');
    const partitions = this.select(scope);
    const n = this.choose(query, partitions, m);
    const d = this.dimension;
    const q = new Float64Array(d);
    for (let j = 0; j < d; j++) q[j] = query[j]!;
    const scores = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const slot = this.chosenSlot[i]!;
      const chunk = partitions[this.chosenPartition[i]!]!.chunks[slot >>> CHUNK_BITS]!;
      const at = slot & CHUNK_MASK;
      const v = chunk.quantized!;
      // Four sums side by side: about 15% faster than one.
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      let j = 0;
      let o = at * d;
      for (; j + 4 <= d; j += 4, o += 4) {
        s0 += q[j]! * v[o]!;
        s1 += q[j + 1]! * v[o + 1]!;
        s2 += q[j + 2]! * v[o + 2]!;
        s3 += q[j + 3]! * v[o + 3]!;
      }
      for (; j < d; j++, o++) s0 += q[j]! * v[o]!;
      scores[i] = (s0 + s1 + s2 + s3) * chunk.factors![at]!;
    }
    const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => scores[b]! - scores[a]! || a - b);
    const sorted = new Float64Array(n);
    const keys = order.map((i, r) => {
      sorted[r] = scores[i]!;
      return partitions[this.chosenPartition[i]!]!.keys[this.chosenSlot[i]!]!;
    });
    let norm = 0;
    for (let j = 0; j < d; j++) norm += q[j]! * q[j]!;
    if (norm > 0) for (let r = 0; r < n; r++) sorted[r] = sorted[r]! / Math.sqrt(norm);
    return { keys, scores: sorted };
  }

  /**
   * Scans the partitions and leaves the `m` nearest codes (ties at the cut
   * taken in scan order) in chosenPartition/chosenSlot; returns how many.
   */
  private choose(query: Float32Array, partitions: readonly Partition<K>[], m: number): number {
    let total = 0;
    for (const p of partitions) total += p.keys.length;
    if (total === 0 || m <= 0) return 0;
    const words = this.words;
    const q = encodeSigns(query, words);
    if (this.distances.length < total) this.distances = new Uint16Array(Math.max(total, this.distances.length * 2));
    const distances = this.distances;
    const histogram = new Uint32Array(words * 32 + 1);
    let at = 0;
    for (const p of partitions)
      for (let c = 0; c < p.chunks.length; c++) {
        const n = Math.min(CHUNK, p.keys.length - c * CHUNK);
        at = hammingScan(p.chunks[c]!.codes, n, q, words, distances, at, histogram);
      }
    // The smallest distance t with at least m codes at distance <= t: one counting pass, no sort of all codes.
    let threshold = 0;
    let below = 0;
    for (; threshold < histogram.length - 1 && below + histogram[threshold]! < m; threshold++)
      below += histogram[threshold]!;
    // Ties at the threshold: only as many as needed to reach m.
    let ties = m - below;
    const n = Math.min(m, total);
    if (this.chosenSlot.length < n) {
      this.chosenSlot = new Uint32Array(Math.max(n, this.chosenSlot.length * 2));
      this.chosenPartition = new Uint32Array(this.chosenSlot.length);
      this.chosenDistance = new Uint16Array(this.chosenSlot.length);
    }
    let chosen = 0;
    at = 0;
    for (let pi = 0; pi < partitions.length; pi++) {
      const size = partitions[pi]!.keys.length;
      for (let i = 0; i < size; i++, at++) {
        const dist = distances[at]!;
        if (dist > threshold) continue;
        if (dist === threshold) {
          if (ties === 0) continue;
          ties--;
        }
        this.chosenPartition[chosen] = pi;
        this.chosenDistance[chosen] = dist;
        this.chosenSlot[chosen++] = i;
      }
    }
    return chosen;
  }

  private select(scope: { tenant: string | null; namespaces?: readonly string[] }): Partition<K>[] {
    const namespaces = scope.namespaces ? new Set(scope.namespaces) : undefined;
    const out: Partition<K>[] = [];
    for (const p of this.partitions.values()) {
      if (scope.tenant !== null && p.tenant !== scope.tenant) continue;
      if (namespaces && !namespaces.has(p.namespace)) continue;
      out.push(p);
    }
    return out;
  }
}

/** Codes per chunk of a partition: chunks never move once full, so growth copies at most one chunk. */
const CHUNK_BITS = 12;
const CHUNK = 1 << CHUNK_BITS;
const CHUNK_MASK = CHUNK - 1;

interface Partition<K> {
  scope: string;
  tenant: string;
  namespace: string;
  /** Slot s lives in chunk s >> CHUNK_BITS at s & CHUNK_MASK. */
  chunks: Chunk[];
  keys: K[];
}

interface Chunk {
  /** Codes it has room for. */
  capacity: number;
  /** `words` 32-bit words per code. */
  codes: Uint32Array;
  /** Rescoring index only: `dimension` int8 components per code... */
  quantized?: Int8Array;
  /** ...and per code the factor that turns their dot product with a query into cosine times the query's norm. */
  factors?: Float32Array;
}

/**
 * A vector's sign-bit code (little-endian 32-bit words), then its int8 copy's
 * factor (float32, little-endian) and components: the bytes
 * `BinaryIndex.setEncoded` takes.
 */
export function encodeRescoring(vector: Float32Array): Uint8Array {
  const words = Math.ceil(vector.length / 32);
  const out = new Uint8Array(words * 4 + 4 + vector.length);
  if (scratch.signs.length < words) scratch.signs = new Uint32Array(words);
  writeSigns(vector, scratch.signs, 0, words);
  out.set(new Uint8Array(scratch.signs.buffer, 0, words * 4));
  quantize(vector, new Int8Array(out.buffer, words * 4 + 4, vector.length), 0, scratch.factor, 0);
  out.set(scratch.factorBytes, words * 4);
  return out;
}

const factor = new Float32Array(1);
/** Scratch for encoding and decoding codes: the factor as float32 and as its bytes share one buffer. */
const scratch = { signs: new Uint32Array(12), factor, factorBytes: new Uint8Array(factor.buffer) };

/** Components scaled so the largest magnitude is 127; the factor undoes the scale and divides by the norm. */
function quantize(vector: Float32Array, out: Int8Array, offset: number, factors: Float32Array, slot: number): void {
  let max = 0;
  let norm = 0;
  for (let i = 0; i < vector.length; i++) {
    const x = vector[i]!;
    norm += x * x;
    if (Math.abs(x) > max) max = Math.abs(x);
  }
  const scale = max > 0 ? 127 / max : 0;
  for (let i = 0; i < vector.length; i++) out[offset + i] = Math.round(vector[i]! * scale);
  factors[slot] = max > 0 && norm > 0 ? 1 / (scale * Math.sqrt(norm)) : 0;
}

/**
 * Candidates taken by Hamming distance per approximate query: max(factor *
 * k, min), then rescored (exactly, or by int8 copies and the head exactly).
 * On the bench corpus (semantic test embedder, 384 dims) this keeps recall@10
 * at 0.98 or more of exact search (docs/benchmarks.md).
 */
export const APPROXIMATE_POOL = { factor: 12, min: 600 } as const;

/**
 * The pool-growing loop of a filtered approximate search over a scope of
 * `total` codes. `fetch(m)` takes the m nearest codes and returns how many it
 * took, how many of those it looked at (all unless said: a caller that ranks
 * the pool first may stop once it has enough) and those that pass the filter.
 * When only a share s of candidates passes, the k best matches lie about 1/s
 * times deeper, so the pool grows to base / s. Undefined when the pool would
 * exceed half the scope: then an exact scan is cheaper (and exact).
 */
export function approximateCandidates<T>(
  k: number,
  total: number,
  fetch: (m: number) => { taken: number; examined?: number; passing: T[] } | undefined,
): T[] | undefined {
  const base = Math.max(APPROXIMATE_POOL.factor * k, APPROXIMATE_POOL.min);
  let m = base;
  while (m * 2 <= total) {
    const found = fetch(m);
    if (!found) return undefined;
    const share = found.passing.length / Math.max(1, found.examined ?? found.taken);
    const needed = share > 0 ? Math.ceil(base / share) : Number.POSITIVE_INFINITY;
    if (found.taken < m || (found.passing.length >= k && m >= needed)) return found.passing;
    m = Math.max(m * 2, Math.ceil(needed * 1.1));
  }
  return undefined;
}

/**
 * Whether a vector has too many zero components for its signs to rank it
 * (lexical feature-hashing vectors: a few dozen non-zero of 384): then the
 * binary index cannot pick candidates and search stays exact.
 */
export function isSparse(vector: Float32Array): boolean {
  let zeros = 0;
  for (let i = 0; i < vector.length; i++) if (vector[i] === 0) zeros++;
  return zeros * 4 > vector.length;
}

/** Bit i of the code is set when component i is positive. */
export function encodeSigns(vector: Float32Array, words = Math.ceil(vector.length / 32)): Uint32Array {
  const code = new Uint32Array(words);
  writeSigns(vector, code, 0, words);
  return code;
}

function writeSigns(vector: Float32Array, out: Uint32Array, offset: number, words: number): void {
  // Each word built in a local: a read-modify-write of the typed array per component cost 3x.
  for (let w = 0; w < words; w++) {
    let bits = 0;
    const end = Math.min(vector.length, (w + 1) * 32);
    for (let i = w * 32, b = 0; i < end; i++, b++) if (vector[i]! > 0) bits |= 1 << b;
    out[offset + w] = bits;
  }
}

/** The sum of the four bytes (a multiply would wrap once the sum passed 255). */
function addBytes(bytes: number): number {
  const halves = (bytes & 0x00ff00ff) + ((bytes >>> 8) & 0x00ff00ff);
  return (halves & 0xffff) + (halves >>> 16);
}

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}

/**
 * Hamming distances of n codes to q, into out from `at`, counted in the
 * histogram. Codes of a multiple of 12 words (384, 768, 1536... dims) go 12
 * words at a time with the query's words in locals (a third faster than a
 * loop over words); others three words at a time, then word by word.
 */
function hammingScan(
  codes: Uint32Array,
  n: number,
  q: Uint32Array,
  words: number,
  out: Uint16Array,
  at: number,
  histogram: Uint32Array,
): number {
  if (words % 12 === 0) {
    for (let block = 0; block < words; block += 12)
      scan12(codes, n, words, block, q, out, at, block === 0, block + 12 === words ? histogram : undefined);
    return at + n;
  }
  for (let i = 0, o = 0; i < n; i++, o += words) {
    let d = 0;
    let bytes = 0;
    let groups = 0;
    let j = 0;
    for (; j + 3 <= words; j += 3) {
      bytes += bytesSum(codes[o + j]! ^ q[j]!, codes[o + j + 1]! ^ q[j + 1]!, codes[o + j + 2]! ^ q[j + 2]!);
      if (++groups === 10) {
        d += addBytes(bytes);
        bytes = 0;
        groups = 0;
      }
    }
    d += addBytes(bytes);
    for (; j < words; j++) d += popcount(codes[o + j]! ^ q[j]!);
    out[at++] = d;
    histogram[d]!++;
  }
  return at;
}

/** Adds (or, first, writes) the distances of words block..block+11 of each code; the last block counts them. */
function scan12(
  codes: Uint32Array,
  n: number,
  words: number,
  block: number,
  q: Uint32Array,
  out: Uint16Array,
  at: number,
  first: boolean,
  histogram: Uint32Array | undefined,
): void {
  const q0 = q[block]!;
  const q1 = q[block + 1]!;
  const q2 = q[block + 2]!;
  const q3 = q[block + 3]!;
  const q4 = q[block + 4]!;
  const q5 = q[block + 5]!;
  const q6 = q[block + 6]!;
  const q7 = q[block + 7]!;
  const q8 = q[block + 8]!;
  const q9 = q[block + 9]!;
  const q10 = q[block + 10]!;
  const q11 = q[block + 11]!;
  for (let i = 0, o = block; i < n; i++, o += words) {
    // bytesSum written out four times: V8 stopped inlining the calls once this loop ran per chunk.
    let bytes = 0;
    {
      let x = codes[o]! ^ q0;
      let y = codes[o + 1]! ^ q1;
      let z = codes[o + 2]! ^ q2;
      x -= (x >>> 1) & 0x55555555;
      y -= (y >>> 1) & 0x55555555;
      z -= (z >>> 1) & 0x55555555;
      const s =
        (x & 0x33333333) +
        ((x >>> 2) & 0x33333333) +
        (y & 0x33333333) +
        ((y >>> 2) & 0x33333333) +
        (z & 0x33333333) +
        ((z >>> 2) & 0x33333333);
      bytes += (s & 0x0f0f0f0f) + ((s >>> 4) & 0x0f0f0f0f);
    }
    {
      let x = codes[o + 3]! ^ q3;
      let y = codes[o + 4]! ^ q4;
      let z = codes[o + 5]! ^ q5;
      x -= (x >>> 1) & 0x55555555;
      y -= (y >>> 1) & 0x55555555;
      z -= (z >>> 1) & 0x55555555;
      const s =
        (x & 0x33333333) +
        ((x >>> 2) & 0x33333333) +
        (y & 0x33333333) +
        ((y >>> 2) & 0x33333333) +
        (z & 0x33333333) +
        ((z >>> 2) & 0x33333333);
      bytes += (s & 0x0f0f0f0f) + ((s >>> 4) & 0x0f0f0f0f);
    }
    {
      let x = codes[o + 6]! ^ q6;
      let y = codes[o + 7]! ^ q7;
      let z = codes[o + 8]! ^ q8;
      x -= (x >>> 1) & 0x55555555;
      y -= (y >>> 1) & 0x55555555;
      z -= (z >>> 1) & 0x55555555;
      const s =
        (x & 0x33333333) +
        ((x >>> 2) & 0x33333333) +
        (y & 0x33333333) +
        ((y >>> 2) & 0x33333333) +
        (z & 0x33333333) +
        ((z >>> 2) & 0x33333333);
      bytes += (s & 0x0f0f0f0f) + ((s >>> 4) & 0x0f0f0f0f);
    }
    {
      let x = codes[o + 9]! ^ q9;
      let y = codes[o + 10]! ^ q10;
      let z = codes[o + 11]! ^ q11;
      x -= (x >>> 1) & 0x55555555;
      y -= (y >>> 1) & 0x55555555;
      z -= (z >>> 1) & 0x55555555;
      const s =
        (x & 0x33333333) +
        ((x >>> 2) & 0x33333333) +
        (y & 0x33333333) +
        ((y >>> 2) & 0x33333333) +
        (z & 0x33333333) +
        ((z >>> 2) & 0x33333333);
      bytes += (s & 0x0f0f0f0f) + ((s >>> 4) & 0x0f0f0f0f);
    }
    const halves = (bytes & 0x00ff00ff) + ((bytes >>> 8) & 0x00ff00ff);
    const d = (halves & 0xffff) + (halves >>> 16);
    const total = first ? d : out[at + i]! + d;
    out[at + i] = total;
    if (histogram) histogram[total]!++;
  }
}

/**
 * The set bits of three words, as four byte counts in one number: their 2-bit
 * counts summed per nibble (at most 12, no carry), folded into bytes (at most
 * 24). Up to ten such sums can be added before a byte could pass 255.
 */
function bytesSum(x: number, y: number, z: number): number {
  x -= (x >>> 1) & 0x55555555;
  y -= (y >>> 1) & 0x55555555;
  z -= (z >>> 1) & 0x55555555;
  const s =
    (x & 0x33333333) +
    ((x >>> 2) & 0x33333333) +
    (y & 0x33333333) +
    ((y >>> 2) & 0x33333333) +
    (z & 0x33333333) +
    ((z >>> 2) & 0x33333333);
  return (s & 0x0f0f0f0f) + ((s >>> 4) & 0x0f0f0f0f);
}
