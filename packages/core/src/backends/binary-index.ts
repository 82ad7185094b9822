/**
 * Sign-bit (binary-quantized) codes of vectors, grouped by (tenant,
 * namespace), searched by Hamming distance: a scan of 48 bytes per 384-dim
 * vector instead of 1,536, used to pick a candidate pool that is then rescored
 * exactly with the float vectors. Keys are the caller's (SQLite rowids,
 * in-memory record ids).
 */
export class BinaryIndex<K> {
  /** 32-bit words per code. */
  readonly words: number;
  private readonly partitions = new Map<string, Partition<K>>();
  private readonly slots = new Map<K, { partition: Partition<K>; slot: number }>();
  private distances = new Uint16Array(0);

  constructor(readonly dimension: number) {
    this.words = Math.ceil(dimension / 32);
  }

  get size(): number {
    return this.slots.size;
  }

  /** Adds or replaces the code of `key`. */
  set(key: K, tenant: string, namespace: string, vector: Float32Array): void {
    this.setCode(key, tenant, namespace, encodeSigns(vector, this.words));
  }

  /** Adds or replaces an already encoded code (see `encodeSigns`). */
  setCode(key: K, tenant: string, namespace: string, code: Uint32Array): void {
    const scope = `${tenant}\u0000${namespace}`;
    const at = this.slots.get(key);
    if (at && at.partition.scope === scope) {
      at.partition.codes.set(code, at.slot * this.words);
      return;
    }
    if (at) this.remove(key);
    let partition = this.partitions.get(scope);
    if (!partition) {
      partition = { scope, tenant, namespace, codes: new Uint32Array(64 * this.words), keys: [] };
      this.partitions.set(scope, partition);
    }
    const slot = partition.keys.length;
    if ((slot + 1) * this.words > partition.codes.length) {
      const grown = new Uint32Array(partition.codes.length * 2);
      grown.set(partition.codes);
      partition.codes = grown;
    }
    partition.codes.set(code, slot * this.words);
    partition.keys.push(key);
    this.slots.set(key, { partition, slot });
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
      partition.codes.copyWithin(slot * this.words, last * this.words, (last + 1) * this.words);
      this.slots.set(moved, { partition, slot });
    }
    partition.keys.pop();
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
    let total = 0;
    for (const p of partitions) total += p.keys.length;
    if (total === 0 || m <= 0) return [];
    const q = encodeSigns(query, this.words);
    if (this.distances.length < total) this.distances = new Uint16Array(Math.max(total, this.distances.length * 2));
    const distances = this.distances;
    const histogram = new Uint32Array(this.words * 32 + 1);
    let at = 0;
    for (const p of partitions) {
      at = hammingScan(p.codes, p.keys.length, q, this.words, distances, at, histogram);
    }
    // The smallest distance t with at least m codes at distance <= t: one counting pass, no sort of all codes.
    let threshold = 0;
    let below = 0;
    for (; threshold < histogram.length - 1 && below + histogram[threshold]! < m; threshold++)
      below += histogram[threshold]!;
    // Ties at the threshold: only as many as needed to reach m.
    let ties = m - below;
    const byDistance: { key: K; d: number }[] = [];
    at = 0;
    for (const p of partitions) {
      for (let i = 0; i < p.keys.length; i++, at++) {
        const d = distances[at]!;
        if (d > threshold) continue;
        if (d === threshold) {
          if (ties === 0) continue;
          ties--;
        }
        byDistance.push({ key: p.keys[i]!, d });
      }
    }
    return byDistance.sort((a, b) => a.d - b.d).map((c) => c.key);
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

interface Partition<K> {
  scope: string;
  tenant: string;
  namespace: string;
  /** `words` 32-bit words per key, in the order of `keys`. */
  codes: Uint32Array;
  keys: K[];
}

/**
 * Candidates rescored per approximate query: max(factor * k, min). On the
 * bench corpus (semantic test embedder, 384 dims) this keeps recall@10 at
 * 0.98 or more of exact search (docs/benchmarks.md).
 */
export const APPROXIMATE_POOL = { factor: 12, min: 600 } as const;

/**
 * The pool-growing loop of a filtered approximate search over a scope of
 * `total` codes. `fetch(m)` takes the m nearest codes and returns how many it
 * took and those that pass the filter. When only a share s of candidates
 * passes, the k best matches lie about 1/s times deeper, so the pool grows to
 * base / s. Undefined when the pool would exceed half the scope: then an exact
 * scan is cheaper (and exact).
 */
export function approximateCandidates<T>(
  k: number,
  total: number,
  fetch: (m: number) => { taken: number; passing: T[] } | undefined,
): T[] | undefined {
  const base = Math.max(APPROXIMATE_POOL.factor * k, APPROXIMATE_POOL.min);
  let m = base;
  while (m * 2 <= total) {
    const found = fetch(m);
    if (!found) return undefined;
    const share = found.passing.length / Math.max(1, found.taken);
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
  for (let i = 0; i < vector.length; i++) if (vector[i]! > 0) code[i >>> 5]! |= 1 << (i & 31);
  return code;
}

function hammingScan(
  codes: Uint32Array,
  n: number,
  q: Uint32Array,
  words: number,
  out: Uint16Array,
  at: number,
  histogram: Uint32Array,
): number {
  for (let i = 0, o = 0; i < n; i++, o += words) {
    let d = 0;
    for (let j = 0; j < words; j++) {
      let x = codes[o + j]! ^ q[j]!;
      x -= (x >>> 1) & 0x55555555;
      x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
      x = (x + (x >>> 4)) & 0x0f0f0f0f;
      d += Math.imul(x, 0x01010101) >>> 24;
    }
    out[at++] = d;
    histogram[d]!++;
  }
  return at;
}
