// Past 700 lines on purpose: one class over one heap layout (chunks of codes, factors, int8 copies),
// and its saved form (toParts/fromParts, lazily read rescoring parts) reads and writes that layout
// directly; split, each half would have to expose the other's internals.
import { cosineSimilarity } from '../embedding/vector-math';
import { CodeHeap } from './kernels/code-heap';
import { hammingScan, within } from './kernels/js-loops';

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
  /** Each code takes whole 16-byte blocks in the heap (what the SIMD scan reads): `stride` words... */
  private readonly stride: number;
  private readonly codeBytes: number;
  /** ...and its int8 copy whole 16-component blocks (zero padded). */
  private readonly blocks: number;
  private heap: CodeHeap;
  private readonly simd: boolean | undefined;
  private readonly partitions = new Map<string, Partition<K>>();
  /** Built on first use: an index restored from saved parts answers searches without it. */
  private slotMap: Map<K, { partition: Partition<K>; slot: number }> | undefined;
  /** Keys placed while `slotMap` is not built (a restored index), each above `savedMax`. */
  private added: Map<K, { partition: Partition<K>; slot: number }> | undefined;
  private maxSaved: number | undefined;
  /** Where a restored index reads what it has not read yet (its rescoring parts, single codes). */
  private source: SavedCodes<K> | undefined;
  /** Scratch blocks in the heap for a scan: the query's code and int16 copy, the histogram, the distances. */
  private scratch:
    | {
        query: number;
        query16: number;
        histogram: number;
        distances: number;
        picked: number;
        room: number;
        /** Where a chunk's codes still in their part are copied to be scanned (0: not allocated yet). */
        codes: number;
      }
    | undefined;
  /** Where `ranked` hands the pool to the rank8 kernel: `room` code offsets, factor indexes and f64 scores. */
  private rankScratch: { codes: number; factors: number; scores: number; room: number } | undefined;
  /** The candidates the last scan chose: partition (index into its selection), slot, distance. */
  /** Where `stage` copies single codes of a restored index: `room` int8 copies, then as many factors. */
  private staging: { at: number; room: number } | undefined;
  /** Bytes of the restored chunks that have no block in the heap yet (`settle`). */
  private unplaced = 0;
  /** A block of `dimension` float32 where `writeSaved` copies a vector for the quantize kernel (0: none yet). */
  private floats = 0;
  /** STAGE_RUN blocks of `dimension` float32 where `stage` copies a run of vectors for quantizeMany (0: none yet). */
  private runFloats = 0;
  /** Two blocks of `dimension` float32 (a query, a vector) for the cosine kernel (0: none yet). */
  private cosineFloats = 0;
  private chosenPartition = new Uint32Array(0);
  private chosenSlot = new Uint32Array(0);
  private chosenDistance = new Uint16Array(0);

  constructor(
    readonly dimension: number,
    options: { rescoring?: boolean; simd?: boolean } = {},
  ) {
    this.words = Math.ceil(dimension / 32);
    this.rescoring = options.rescoring ?? false;
    this.stride = Math.ceil(this.words / 4) * 4;
    this.codeBytes = this.stride * 4;
    this.blocks = Math.ceil(dimension / 16);
    this.simd = options.simd;
    this.heap = new CodeHeap({ simd: options.simd });
  }

  get size(): number {
    if (this.slotMap) return this.slotMap.size;
    let n = 0;
    for (const p of this.partitions.values()) n += p.count;
    return n;
  }

  private get slots(): Map<K, { partition: Partition<K>; slot: number }> {
    if (!this.slotMap) {
      const map = new Map<K, { partition: Partition<K>; slot: number }>();
      for (const partition of this.partitions.values())
        for (let slot = 0; slot < partition.count; slot++) map.set(keyAt(partition, slot), { partition, slot });
      this.slotMap = map;
      this.added = undefined; // the map holds them too
    }
    return this.slotMap;
  }

  /**
   * Where `key` is. A restored index without its slot map yet answers for a number key above every
   * saved key from the keys added since (`added`): the changes a store catches up with after a
   * restore are mostly new rows (new rowids), and the map of 100k keys, with their array for the
   * appends, cost ~30 ms of a cold start for a few of them.
   */
  private lookup(key: K): { partition: Partition<K>; slot: number } | undefined {
    if (!this.slotMap && typeof key === 'number' && key > this.savedMax()) return this.added?.get(key);
    return this.slots.get(key);
  }

  /** The largest saved key of a restored index (-Infinity for none: every lookup builds the map). */
  private savedMax(): number {
    if (this.maxSaved === undefined) {
      let max = Number.NEGATIVE_INFINITY;
      for (const p of this.partitions.values())
        for (const chunk of p.saved ?? []) for (let i = 0; i < chunk.length; i++) max = Math.max(max, chunk[i]!);
      // Only restored partitions answer this way; anything else (a NaN key makes max NaN) goes to the map.
      this.maxSaved = this.source ? max : Number.POSITIVE_INFINITY;
    }
    return this.maxSaved;
  }

  /** Whether scans run in the WebAssembly SIMD kernels (false: the JS loops). */
  get usesSimd(): boolean {
    return this.heap.kernels !== undefined;
  }

  /** Bytes of one code as `encodeRescoring` writes it: sign words, the float32 factor, the int8 copy. */
  get encodedBytes(): number {
    return this.words * 4 + 4 + this.dimension;
  }

  /**
   * Adds or replaces the code of `key` (and its int8 copy when rescoring). `signs`: the vector's sign
   * code as `encodeSigns` gives it (little-endian words), when the caller holds it (a store's codes
   * table): copied, not computed again.
   */
  set(key: K, tenant: string, namespace: string, vector: Float32Array, signs?: Uint8Array): void {
    const { chunk, at } = this.placed(key, tenant, namespace);
    const word = (chunk.at >>> 2) + at * this.stride;
    if (signs?.length === this.words * 4) {
      // A cold catch-up of a few rows had TurboFan compile writeSigns' loop (OSR) for them.
      this.heap.u8.set(signs, word * 4);
      this.heap.u32.fill(0, word + this.words, word + this.stride);
    } else this.writeCode(vector, word);
    if (!this.rescoring) return;
    if (chunk.lazy) chunk.lazy.filled[at] = 1;
    // writeSaved quantizes by the kernel when it can: a cold catch-up of a few rows had TurboFan
    // compile the JS loop (OSR) for them.
    if (vector.length === this.dimension)
      this.writeSaved(vector, this.quantizedAt(chunk, at), this.factorAt(chunk, at));
    else {
      const quantized = this.quantizedAt(chunk, at);
      quantize(vector, this.heap.i8, quantized, this.heap.f32, this.factorAt(chunk, at));
      this.heap.i8.fill(0, quantized + this.dimension, quantized + this.blocks * 16);
    }
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
    const { chunk, at } = this.placed(key, tenant, namespace);
    if (chunk.lazy) chunk.lazy.filled[at] = 1;
    const u8 = this.heap.u8;
    // Little-endian words as stored: the bytes copy as they are (typed arrays are little-endian everywhere Node runs).
    const code = chunk.at + at * this.codeBytes;
    u8.set(encoded.subarray(0, words * 4), code);
    u8.fill(0, code + words * 4, code + this.codeBytes);
    for (let i = 0; i < 4; i++) scratch.factorBytes[i] = encoded[words * 4 + i]!;
    this.heap.f32[this.factorAt(chunk, at)] = scratch.factor[0]!;
    const quantized = this.quantizedAt(chunk, at);
    u8.set(encoded.subarray(words * 4 + 4, words * 4 + 4 + d), quantized);
    u8.fill(0, quantized + d, quantized + this.blocks * 16);
  }

  /** The slot of `key` in its scope's partition, moved or created as needed. */
  private placed(key: K, tenant: string, namespace: string): { chunk: Chunk; at: number } {
    const { partition, slot } = this.place(key, tenant, namespace);
    const chunk = partition.chunks[slot >>> CHUNK_BITS]!;
    this.settle(chunk); // its code is written in the heap next
    return { chunk, at: slot & CHUNK_MASK };
  }

  private place(key: K, tenant: string, namespace: string): { partition: Partition<K>; slot: number } {
    const scope = `${tenant}\u0000${namespace}`;
    const at = this.lookup(key);
    if (at && at.partition.scope === scope) return at;
    if (at) this.remove(key);
    let partition = this.partitions.get(scope);
    if (!partition) {
      partition = { scope, tenant, namespace, chunks: [], keys: [], count: 0 };
      this.partitions.set(scope, partition);
    }
    // Appended: a restored partition keeps its saved keys and takes new ones after them.
    const slot = partition.count;
    const c = slot >>> CHUNK_BITS;
    const chunk = partition.chunks[c];
    if (!chunk) partition.chunks.push(this.chunk(c === 0 ? 64 : CHUNK));
    else if ((slot & CHUNK_MASK) >= chunk.capacity) partition.chunks[c] = this.grown(chunk);
    partition.keys.push(key);
    partition.count++;
    const placed = { partition, slot };
    if (this.slotMap) this.slotMap.set(key, placed);
    else {
      this.added ??= new Map();
      this.added.set(key, placed);
    }
    return placed;
  }

  /** Bytes of a chunk: its codes, then (rescoring) their factors and int8 copies. */
  private chunkBytes(capacity: number): number {
    return capacity * (this.codeBytes + (this.rescoring ? 4 + this.blocks * 16 : 0));
  }

  private factorAt(chunk: Chunk, at: number): number {
    return ((chunk.at + chunk.capacity * this.codeBytes) >>> 2) + at;
  }

  private quantizedAt(chunk: Chunk, at: number): number {
    return chunk.at + chunk.capacity * (this.codeBytes + 4) + at * this.blocks * 16;
  }

  private chunk(capacity: number): Chunk {
    return { capacity, at: this.heap.alloc(this.chunkBytes(capacity)) };
  }

  /** A first chunk doubles up to CHUNK codes (small scopes stay small); later chunks are born full size. */
  private grown(chunk: Chunk): Chunk {
    if (chunk.lazy) this.loadRescoring(chunk);
    this.settle(chunk);
    const bigger = this.chunk(Math.min(CHUNK, chunk.capacity * 2));
    const u8 = this.heap.u8;
    const n = chunk.capacity;
    u8.copyWithin(bigger.at, chunk.at, chunk.at + n * this.codeBytes);
    if (this.rescoring) {
      const from = this.factorAt(chunk, 0) * 4;
      u8.copyWithin(this.factorAt(bigger, 0) * 4, from, from + n * 4);
      const quantized = this.quantizedAt(chunk, 0);
      u8.copyWithin(this.quantizedAt(bigger, 0), quantized, quantized + n * this.blocks * 16);
    }
    this.heap.release(chunk.at, this.chunkBytes(chunk.capacity));
    return bigger;
  }

  remove(key: K): void {
    const at = this.slots.get(key);
    if (!at) return;
    const { partition, slot } = at;
    const last = partition.count - 1;
    const from = partition.chunks[last >>> CHUNK_BITS]!;
    // The code that moves into the hole, read before anything changes (a part that cannot be read leaves the index as it was).
    if (slot !== last && from.lazy && !from.lazy.filled[last & CHUNK_MASK])
      this.fill([{ chunk: from, at: last & CHUNK_MASK, key: keyAt(partition, last) }]);
    writable(partition);
    this.slots.delete(key);
    if (slot !== last) {
      // Swap the last code into the hole: removal stays O(1).
      const moved = partition.keys[last]!;
      partition.keys[slot] = moved;
      const to = partition.chunks[slot >>> CHUNK_BITS]!;
      this.settle(from);
      this.settle(to);
      const t = slot & CHUNK_MASK;
      const f = last & CHUNK_MASK;
      if (to.lazy) to.lazy.filled[t] = 1;
      const { u8, f32 } = this.heap;
      const code = from.at + f * this.codeBytes;
      u8.copyWithin(to.at + t * this.codeBytes, code, code + this.codeBytes);
      if (this.rescoring) {
        const quantized = this.quantizedAt(from, f);
        u8.copyWithin(this.quantizedAt(to, t), quantized, quantized + this.blocks * 16);
        f32[this.factorAt(to, t)] = f32[this.factorAt(from, f)]!;
      }
      this.slots.set(moved, { partition, slot });
    }
    partition.keys.pop();
    partition.count--;
    // A chunk left empty is given back (the first one stays until the partition goes).
    if (last > 0 && (last & CHUNK_MASK) === 0) {
      this.drop(partition.chunks.pop()!);
    }
    if (partition.count === 0) {
      const first = partition.chunks.pop();
      if (first) this.drop(first);
      this.partitions.delete(partition.scope);
    }
  }

  clear(): void {
    this.partitions.clear();
    this.slotMap = new Map();
    this.added = undefined;
    this.maxSaved = undefined;
    this.source = undefined;
    this.heap = new CodeHeap({ simd: this.simd });
    this.scratch = undefined;
    this.rankScratch = undefined;
    this.staging = undefined;
    this.unplaced = 0;
    this.floats = 0;
    this.cosineFloats = 0;
  }

  /**
   * The index as a small header and parts (needs number keys, e.g. SQLite rowids): per chunk of a
   * scope, a part of its keys and sign codes (all a Hamming scan reads), then a part of its factors
   * and int8 copies (what ranking the pool reads). `fromParts` reads them back.
   */
  toParts(): { header: Uint8Array; parts: Uint8Array[] } {
    const parts: Uint8Array[] = [];
    const header = this.writeParts((n, bytes) => {
      parts[n] = bytes.slice();
    });
    return { header, parts };
  }

  /**
   * `toParts` part by part: `write(n, bytes)` gets each part in order, its bytes valid only during the
   * call (a full chunk's rescoring part is a view of the index's heap, the other parts one reused
   * buffer), and the header is returned. A save that writes each part at once holds no copy of the
   * index (~44 MB at 100k vectors of 384 dims, allocated and dropped at every save: issue 30).
   */
  writeParts(write: (n: number, bytes: Uint8Array) => void): Uint8Array {
    if (!this.rescoring) throw new Error('BinaryIndex.toParts needs an index made with { rescoring: true }.');
    this.readAhead(Number.POSITIVE_INFINITY);
    const scopes: SavedScope[] = [];
    const rescoringBytes = 4 + this.blocks * 16;
    let maxKey = Number.NEGATIVE_INFINITY;
    // The parts that are copied, one at a time (the largest chunk's size).
    let buffer = new ArrayBuffer(0);
    let part = 0;
    for (const p of this.partitions.values()) {
      scopes.push({ tenant: p.tenant, namespace: p.namespace, count: p.count });
      for (let c = 0; c < p.chunks.length; c++) {
        const chunk = p.chunks[c]!;
        this.settle(chunk);
        const u8 = this.heap.u8; // after settle: a growth of the heap re-makes its views
        const n = Math.min(CHUNK, p.count - c * CHUNK);
        if (buffer.byteLength < n * Math.max(8 + this.codeBytes, rescoringBytes))
          buffer = new ArrayBuffer(n * Math.max(8 + this.codeBytes, rescoringBytes));
        const signs = new Uint8Array(buffer, 0, n * (8 + this.codeBytes));
        const keys = new Float64Array(buffer, 0, n);
        for (let i = 0; i < n; i++) {
          const key = keyAt(p, c * CHUNK + i);
          if (typeof key !== 'number') throw new Error('BinaryIndex.toParts needs number keys.');
          keys[i] = key;
          maxKey = Math.max(maxKey, key);
        }
        signs.set(u8.subarray(chunk.at, chunk.at + n * this.codeBytes), n * 8);
        write(part++, signs);
        const factors = this.factorAt(chunk, 0) * 4;
        const quantized = this.quantizedAt(chunk, 0);
        if (n === chunk.capacity) {
          // A full chunk keeps its factors and then its int8 copies side by side: the part as it lies.
          write(part++, u8.subarray(factors, quantized + n * this.blocks * 16));
          continue;
        }
        const rescoring = new Uint8Array(buffer, 0, n * rescoringBytes);
        rescoring.set(u8.subarray(factors, factors + n * 4), 0);
        rescoring.set(u8.subarray(quantized, quantized + n * this.blocks * 16), n * 4);
        write(part++, rescoring);
      }
    }
    // maxKey: JSON has no NaN or infinities (null then: a restore computes it from the keys, as before it was saved).
    const header: SavedHeader = { format: PARTS_FORMAT, dimension: this.dimension, scopes, maxKey };
    return new TextEncoder().encode(JSON.stringify(header));
  }

  /**
   * An index from `toParts`' header: the key and sign-code parts of every scope are read now (`read(n)`
   * gives part n, or throws), the rescoring parts when a search or a change first needs them, or
   * `readAhead` reads them; until then `codes(keys)` gives single codes (as `encodeRescoring` encodes
   * them; undefined: gone). A header or part that does not decode throws; a part that cannot be read
   * later throws BinaryPartError and leaves the index as it was. The index keeps views of the key
   * parts' bytes: the source must not change them afterwards.
   */
  static fromParts(header: Uint8Array, source: SavedCodes<number>): BinaryIndex<number> {
    const saved = JSON.parse(new TextDecoder().decode(header)) as SavedHeader;
    if (saved?.format !== PARTS_FORMAT || !Array.isArray(saved.scopes) || !(saved.dimension > 0))
      throw new Error('Not a saved BinaryIndex header.');
    const index = new BinaryIndex<number>(saved.dimension, { rescoring: true });
    const codeBytes = index.codeBytes;
    // Capacities as place() makes them: later chunks full size, a first one doubling from 64.
    const capacity = (c: number, n: number) =>
      c > 0 || n === CHUNK ? CHUNK : Math.min(CHUNK, 2 ** Math.ceil(Math.log2(Math.max(64, n))));
    let part = 0;
    // Each restored chunk's `filled` is a view of one zeroed block, made once the chunks are known:
    // 245 arrays of 4 KB at 1M vectors took 0.5-2.8 ms of a cold start, one block 0.1-0.2.
    const lazies: { lazy: NonNullable<Chunk['lazy']>; capacity: number }[] = [];
    for (const scope of saved.scopes) {
      const { tenant, namespace, count } = scope;
      if (typeof tenant !== 'string' || typeof namespace !== 'string' || !(count > 0)) throw new Error('Bad scope.');
      const partition: Partition<number> = {
        scope: `${tenant}\u0000${namespace}`,
        tenant,
        namespace,
        chunks: [],
        keys: [],
        count,
        saved: [],
      };
      for (let c = 0; c * CHUNK < count; c++, part += 2) {
        const n = Math.min(CHUNK, count - c * CHUNK);
        const bytes = source.part(part);
        if (bytes.length !== n * (8 + codeBytes)) throw new Error(`Saved part ${part} has the wrong size.`);
        // A view, not a copy: it keeps the part's sign codes alive too (~200 KB a chunk, 4.8 MB at 100k),
        // but copying the keys touched 0.8 MB of fresh memory on a cold start; `writable` drops it.
        const keys =
          bytes.byteOffset % 8 === 0
            ? new Float64Array(bytes.buffer, bytes.byteOffset, n)
            : new Float64Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + n * 8));
        partition.saved!.push(keys);
        partition.savedCount = (partition.savedCount ?? 0) + n;
        // No block in the heap yet: the sign codes stay in the part until the chunk's rescoring part is
        // read or a change needs them (`settle`), and the first search scans them there. Placed at once,
        // the heap's 44 MB at 100k (codes, factors, int8 copies) made V8 collect garbage for the external
        // memory (10-40 ms), and copying the codes touched 4.8 MB of fresh memory.
        const at = bytes.byteOffset + n * 8;
        const signs =
          at % 4 === 0
            ? new Uint32Array(bytes.buffer, at, n * index.stride)
            : new Uint32Array(bytes.buffer.slice(at, at + n * codeBytes));
        const chunk: Chunk = { capacity: capacity(c, n), at: 0, signs };
        chunk.lazy = { part: part + 1, count: n, filled: NONE_FILLED };
        lazies.push({ lazy: chunk.lazy, capacity: chunk.capacity });
        index.unplaced += align16(index.chunkBytes(chunk.capacity));
        partition.chunks.push(chunk);
      }
      index.partitions.set(partition.scope, partition);
    }
    const filled = new Uint8Array(lazies.reduce((sum, l) => sum + l.capacity, 0));
    let at = 0;
    for (const l of lazies) {
      l.lazy.filled = filled.subarray(at, at + l.capacity);
      at += l.capacity;
    }
    index.source = source;
    index.slotMap = undefined;
    // Saved since the header held it: no pass over every key (1M at 1M vectors) on a cold catch-up.
    if (Number.isSafeInteger(saved.maxKey)) index.maxSaved = saved.maxKey as number;
    return index;
  }

  /** Rescoring parts not read yet. */
  get unreadParts(): number {
    let n = 0;
    for (const p of this.partitions.values()) for (const c of p.chunks) if (c.lazy) n++;
    return n;
  }

  /** Reads up to `parts` rescoring parts a restored index has not read yet; returns how many are left. */
  readAhead(parts: number): number {
    let left = 0;
    for (const p of this.partitions.values())
      for (const chunk of p.chunks) {
        if (!chunk.lazy) continue;
        if (parts-- > 0) this.loadRescoring(chunk);
        else left++;
      }
    return left;
  }

  /** A chunk's rescoring part, over the slots not written since the index was restored. */
  private loadRescoring(chunk: Chunk): void {
    const lazy = chunk.lazy!;
    const bytes = this.readPart(lazy.part);
    const n = lazy.count;
    const q = this.blocks * 16;
    if (bytes.length !== n * (4 + q)) throw new BinaryPartError(`Saved part ${lazy.part} has the wrong size.`);
    this.settle(chunk, true);
    const u8 = this.heap.u8;
    const factors = this.factorAt(chunk, 0) * 4;
    const quantized = this.quantizedAt(chunk, 0);
    for (let i = 0; i < n; i++) {
      if (lazy.filled[i]) continue;
      // Runs of slots not written since: one copy each.
      let j = i + 1;
      while (j < n && !lazy.filled[j]) j++;
      u8.set(bytes.subarray(i * 4, j * 4), factors + i * 4);
      u8.set(bytes.subarray(n * 4 + i * q, n * 4 + j * q), quantized + i * q);
      i = j - 1;
    }
    chunk.lazy = undefined;
  }

  /**
   * Gives a restored chunk its block in the heap, with its sign codes copied from its part, before
   * anything reads or writes the block. Reading a rescoring part (`all`) grows the heap once for
   * every chunk still without a block (each growth can make V8 collect garbage); a change settles
   * its chunk alone (a catch-up at load would otherwise grow the heap whole, 44 MB at 100k).
   */
  private settle(chunk: Chunk, all = false): void {
    const signs = chunk.signs;
    if (!signs) return;
    const bytes = this.chunkBytes(chunk.capacity);
    if (all) this.heap.reserve(this.unplaced);
    chunk.at = this.heap.alloc(bytes);
    this.unplaced -= align16(bytes);
    this.heap.u8.set(new Uint8Array(signs.buffer, signs.byteOffset, signs.byteLength), chunk.at);
    chunk.signs = undefined;
  }

  /** A chunk's block back to the heap (a restored chunk not settled has none). */
  private drop(chunk: Chunk): void {
    if (chunk.signs) this.unplaced -= align16(this.chunkBytes(chunk.capacity));
    else this.heap.release(chunk.at, this.chunkBytes(chunk.capacity));
  }

  private readPart(part: number): Uint8Array {
    try {
      return this.source!.part(part);
    } catch (error) {
      throw error instanceof BinaryPartError ? error : new BinaryPartError(`Saved part ${part}: ${String(error)}`);
    }
  }

  /** Single codes into slots whose rescoring part was not read (a gone key scores 0: its row is re-read anyway). */
  private fill(slots: { chunk: Chunk; at: number; key: K }[]): void {
    let codes: SavedCode[];
    try {
      codes = this.source!.codes(slots.map((s) => s.key));
    } catch (error) {
      throw error instanceof BinaryPartError ? error : new BinaryPartError(`Saved codes: ${String(error)}`);
    }
    for (let i = 0; i < slots.length; i++) {
      const { chunk, at } = slots[i]!;
      this.settle(chunk);
      this.writeSaved(codes[i], this.quantizedAt(chunk, at), this.factorAt(chunk, at));
      chunk.lazy!.filled[at] = 1;
    }
  }

  /**
   * A saved code's int8 copy at byte `quantized` (zero padded to whole blocks) and its factor at f32
   * index `factor`: copied from encoded bytes, quantized from a vector (the same bytes), or zeros
   * for a key gone (it scores 0; its row is re-read anyway).
   */
  private writeSaved(code: SavedCode, quantized: number, factor: number): void {
    const d = this.dimension;
    const kernels = this.heap.kernels;
    // Where a vector is copied for the kernel to quantize (allocated before any view is taken).
    if (kernels && code instanceof Float32Array && this.floats === 0) this.floats = this.heap.alloc(d * 4);
    const { u8, i8, f32 } = this.heap;
    if (code instanceof Float32Array && code.length === d) {
      // The kernel: the JS loop is not optimized yet on a cold start (~600 vectors took ~10 ms, ~2 warm).
      if (kernels) {
        f32.set(code, this.floats >>> 2);
        kernels.quantize(this.floats, d, quantized, factor * 4);
      } else quantize(code, i8, quantized, f32, factor);
    } else if (code instanceof Uint8Array && code.length === this.encodedBytes) {
      const words = this.words;
      for (let b = 0; b < 4; b++) scratch.factorBytes[b] = code[words * 4 + b]!;
      f32[factor] = scratch.factor[0]!;
      u8.set(code.subarray(words * 4 + 4, words * 4 + 4 + d), quantized);
    } else {
      f32[factor] = 0;
      u8.fill(0, quantized, quantized + d);
    }
    u8.fill(0, quantized + d, quantized + this.blocks * 16);
  }

  /**
   * `cosineSimilarity(query, v)` of each vector, the same numbers (float64, in the same order), by
   * the WebAssembly kernel when the heap has one: the exact scores of a search's head (~18 vectors),
   * whose JS loop a cold process ran in V8's interpreter and then had TurboFan compile mid-search.
   */
  cosines(query: Float32Array, vectors: readonly Float32Array[]): number[] {
    const d = query.length;
    const kernels = this.heap.kernels;
    if (!kernels || d !== this.dimension || d === 0) return vectors.map((v) => cosineSimilarity(query, v));
    // Allocated before any view is taken (an allocation may re-make them).
    if (this.cosineFloats === 0) this.cosineFloats = this.heap.alloc(d * 8);
    const at = this.cosineFloats;
    const f32 = this.heap.f32;
    f32.set(query, at >>> 2);
    return vectors.map((v) => {
      if (v.length !== d) return cosineSimilarity(query, v);
      f32.set(v, (at >>> 2) + d);
      return kernels.cosine(at, at + d * 4, d);
    });
  }

  /** How many codes the scope holds (tenant `null`: every tenant; no namespaces: all of them). */
  count(scope: { tenant: string | null; namespaces?: readonly string[] }): number {
    let n = 0;
    for (const p of this.select(scope)) n += p.count;
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
    return byDistance.map((i) => keyAt(partitions[this.chosenPartition[i]!]!, this.chosenSlot[i]!));
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
    // Nothing chosen (an empty scope, m <= 0): choose() returned before any scratch block existed.
    if (n === 0) return { keys: [], scores: new Float64Array(0) };
    // Where each candidate's int8 copy (byte offset) and factor (f32 index) lie: in its chunk, or staged.
    const quantized = new Uint32Array(n);
    const factors = new Uint32Array(n);
    for (let i = 0; i < n; i++) {
      const slot = this.chosenSlot[i]!;
      const chunk = partitions[this.chosenPartition[i]!]!.chunks[slot >>> CHUNK_BITS]!;
      quantized[i] = this.quantizedAt(chunk, slot & CHUNK_MASK);
      factors[i] = this.factorAt(chunk, slot & CHUNK_MASK);
    }
    if (this.source) this.stage(partitions, n, quantized, factors);
    const d = this.dimension;
    const heap = this.heap;
    const scores = new Float64Array(n);
    let norm = 0;
    for (let j = 0; j < d; j++) norm += query[j]! * query[j]!;
    const kernels = heap.kernels;
    const length = norm > 0 ? Math.sqrt(norm) : 1;
    if (kernels) {
      // The query as int16, scaled so that no 32-bit sum of the kernel can overflow (|int8| <= 127).
      let max = 0;
      for (let j = 0; j < d; j++) max = Math.max(max, Math.abs(query[j]!));
      const scale = max > 0 ? Math.min(32_767, Math.floor(0x7fffffff / (127 * this.blocks * 16))) / max : 0;
      // Allocated before any view is taken (an allocation may re-make them).
      const rank = scale > 0 ? this.rankScratchFor(n) : undefined;
      const at = this.scratch!.query16;
      const i16 = heap.i16;
      for (let j = 0; j < d; j++) i16[(at >>> 1) + j] = Math.round(query[j]! * scale);
      i16.fill(0, (at >>> 1) + d, (at >>> 1) + this.blocks * 16);
      if (rank) {
        // The pool in one call (the same numbers as a dot8 call a candidate, then the division by length).
        const u32 = heap.u32;
        u32.set(quantized, rank.codes >>> 2);
        u32.set(factors, rank.factors >>> 2);
        kernels.rank8(rank.codes, rank.factors, n, at, this.blocks, scale, length, rank.scores);
        scores.set(heap.f64.subarray(rank.scores >>> 3, (rank.scores >>> 3) + n));
      } else {
        for (let i = 0; i < n; i++) scores[i] = (0 * heap.f32[factors[i]!]!) / length;
      }
    } else {
      const q = new Float64Array(d);
      for (let j = 0; j < d; j++) q[j] = query[j]!;
      const v = heap.i8;
      for (let i = 0; i < n; i++) {
        // Four sums side by side: about 15% faster than one.
        let s0 = 0;
        let s1 = 0;
        let s2 = 0;
        let s3 = 0;
        let j = 0;
        let o = quantized[i]!;
        for (; j + 4 <= d; j += 4, o += 4) {
          s0 += q[j]! * v[o]!;
          s1 += q[j + 1]! * v[o + 1]!;
          s2 += q[j + 2]! * v[o + 2]!;
          s3 += q[j + 3]! * v[o + 3]!;
        }
        for (; j < d; j++, o++) s0 += q[j]! * v[o]!;
        scores[i] = ((s0 + s1 + s2 + s3) * heap.f32[factors[i]!]!) / length;
      }
    }
    const order = rankOrder(scores, n);
    const sorted = new Float64Array(n);
    const keys: K[] = new Array(n);
    for (let r = 0; r < n; r++) {
      const i = order[r]!;
      sorted[r] = scores[i]!;
      keys[r] = keyAt(partitions[this.chosenPartition[i]!]!, this.chosenSlot[i]!);
    }
    return { keys, scores: sorted };
  }

  /**
   * A restored index: the candidates whose chunk's rescoring part was not read yet get their codes
   * one by one (`source.codes`), copied into a staging block and their offsets pointed there. Not
   * into their slots: on a cold start each slot lies on its own page of memory never touched yet
   * (~600 page faults for a pool of 600, ~10 ms on the bench VM); the parts fill the slots later.
   */
  private stage(partitions: readonly Partition<K>[], n: number, quantized: Uint32Array, factors: Uint32Array): void {
    const missing: number[] = [];
    const keys: K[] = [];
    for (let i = 0; i < n; i++) {
      const slot = this.chosenSlot[i]!;
      const partition = partitions[this.chosenPartition[i]!]!;
      const chunk = partition.chunks[slot >>> CHUNK_BITS]!;
      if (chunk.lazy && !chunk.lazy.filled[slot & CHUNK_MASK]) {
        missing.push(i);
        keys.push(keyAt(partition, slot));
      }
    }
    if (missing.length === 0) return;
    let codes: SavedCode[];
    try {
      codes = this.source!.codes(keys);
    } catch (error) {
      throw error instanceof BinaryPartError ? error : new BinaryPartError(`Saved codes: ${String(error)}`);
    }
    const q = this.blocks * 16;
    let staging = this.staging;
    if (!staging || staging.room < missing.length) {
      if (staging) this.heap.release(staging.at, staging.room * (q + 4));
      const room = Math.max(missing.length, (staging?.room ?? 0) * 2, 64);
      staging = { at: this.heap.alloc(room * (q + 4)), room };
      this.staging = staging;
    }
    // The int8 copies, then the factors (q is a multiple of 16: the factors stay 4-byte aligned).
    const factorBase = (staging.at + staging.room * q) >>> 2;
    const d = this.dimension;
    const kernels = this.heap.kernels;
    // Runs of floats are copied side by side and quantized by one kernel call a run of up to
    // STAGE_RUN: not one call a vector (~600 on a cold first search, each through V8's generic
    // JS-to-WebAssembly wrapper). The same bytes as writeSaved's.
    if (kernels && this.runFloats === 0) this.runFloats = this.heap.alloc(STAGE_RUN * d * 4);
    let run = 0;
    for (let j = 0; j < missing.length; j++) {
      const i = missing[j]!;
      const at = staging.at + j * q;
      const code = codes[j];
      if (kernels && code instanceof Float32Array && code.length === d) {
        this.heap.f32.set(code, (this.runFloats >>> 2) + run * d);
        if (++run === STAGE_RUN) run = this.quantizeRun(run, j + 1, staging.at, factorBase);
      } else {
        if (run > 0) run = this.quantizeRun(run, j, staging.at, factorBase);
        this.writeSaved(code, at, factorBase + j);
      }
      quantized[i] = at;
      factors[i] = factorBase + j;
    }
    if (run > 0) this.quantizeRun(run, missing.length, staging.at, factorBase);
  }

  /** Quantizes the `run` floats copied at `runFloats` into staging slots `end - run` to `end` (returns 0). */
  private quantizeRun(run: number, end: number, staging: number, factorBase: number): number {
    const q = this.blocks * 16;
    const d = this.dimension;
    const first = end - run;
    this.heap.kernels!.quantizeMany(this.runFloats, d, staging + first * q, (factorBase + first) * 4, run, q);
    if (q > d) for (let j = first; j < end; j++) this.heap.u8.fill(0, staging + j * q + d, staging + (j + 1) * q);
    return 0;
  }

  /** The sign words of `vector` at u32 index `word`, the rest of its stride zeroed (the kernels read whole blocks). */
  private writeCode(vector: Float32Array, word: number): void {
    const u32 = this.heap.u32;
    writeSigns(vector, u32, word, this.words);
    u32.fill(0, word + this.words, word + this.stride);
  }

  /** rank8's blocks, with room for `n` candidates (allocated before any view is taken). */
  private rankScratchFor(n: number): { codes: number; factors: number; scores: number; room: number } {
    let r = this.rankScratch;
    if (r && r.room >= n) return r;
    const heap = this.heap;
    if (r) {
      heap.release(r.codes, r.room * 4);
      heap.release(r.factors, r.room * 4);
      heap.release(r.scores, r.room * 8);
    }
    const room = Math.max(n, (r?.room ?? 0) * 2, 1024);
    r = { codes: heap.alloc(room * 4), factors: heap.alloc(room * 4), scores: heap.alloc(room * 8), room };
    this.rankScratch = r;
    return r;
  }

  /** The scan's scratch blocks, with room for `total` distances (allocated before any view is taken). */
  private scratchFor(total: number) {
    let s = this.scratch;
    if (!s) {
      const heap = this.heap;
      s = {
        query: heap.alloc(this.codeBytes),
        query16: heap.alloc(this.blocks * 32),
        histogram: heap.alloc((this.words * 32 + 1) * 4),
        distances: 0,
        picked: 0,
        room: 0,
        codes: 0,
      };
      this.scratch = s;
    }
    if (s.room < total) {
      if (s.room > 0) {
        this.heap.release(s.distances, s.room * 2);
        this.heap.release(s.picked, s.room * 4);
      }
      s.room = Math.max(total, s.room * 2, 1024);
      s.distances = this.heap.alloc(s.room * 2);
      s.picked = this.heap.alloc(s.room * 4);
    }
    return s;
  }

  /**
   * Scans the partitions and leaves the `m` nearest codes (ties at the cut
   * taken in scan order) in chosenPartition/chosenSlot; returns how many.
   */
  private choose(query: Float32Array, partitions: readonly Partition<K>[], m: number): number {
    let total = 0;
    for (const p of partitions) total += p.count;
    if (total === 0 || m <= 0) return 0;
    const words = this.words;
    const s = this.scratchFor(total);
    if (s.codes === 0 && this.heap.kernels && partitions.some((p) => p.chunks.some((c) => c.signs)))
      s.codes = this.heap.alloc(CHUNK * this.codeBytes);
    const heap = this.heap;
    const q = s.query >>> 2;
    this.writeCode(query, q);
    const histogram = s.histogram >>> 2;
    const bins = words * 32 + 1;
    heap.u32.fill(0, histogram, histogram + bins);
    const distances = s.distances >>> 1;
    const kernels = heap.kernels;
    // Codes of three blocks (257-384 dimensions) by scalar popcounts where that is faster (x86-64).
    const three = this.stride === 12 ? kernels?.hamming3 : undefined;
    let at = 0;
    for (const p of partitions)
      for (let c = 0; c < p.chunks.length; c++) {
        const n = Math.min(CHUNK, p.count - c * CHUNK);
        const chunk = p.chunks[c]!;
        const { signs } = chunk;
        if (signs && kernels) {
          // A restored chunk's codes still in their part: copied into one reused block and scanned there.
          // The part's pages are warm (SQLite's read wrote them); the chunk's own block would be fresh
          // memory, and the JS loop took ~10 ms for 100k codes on a cold start (not optimized yet).
          heap.u8.set(new Uint8Array(signs.buffer, signs.byteOffset, n * this.codeBytes), s.codes);
          if (three) three(s.codes, n, s.query, s.distances + at * 2, s.histogram);
          else kernels.hamming(s.codes, n, this.stride / 4, s.query, s.distances + at * 2, s.histogram);
        } else if (signs)
          hammingScan(signs, 0, n, heap.u32, q, words, this.stride, heap.u16, distances + at, heap.u32, histogram);
        else if (three) three(chunk.at, n, s.query, s.distances + at * 2, s.histogram);
        else if (kernels) kernels.hamming(chunk.at, n, this.stride / 4, s.query, s.distances + at * 2, s.histogram);
        else
          hammingScan(
            heap.u32,
            chunk.at >>> 2,
            n,
            heap.u32,
            q,
            words,
            this.stride,
            heap.u16,
            distances + at,
            heap.u32,
            histogram,
          );
        at += n;
      }
    const counts = heap.u32;
    const u16 = heap.u16;
    // The smallest distance t with at least m codes at distance <= t: one counting pass, no sort of all codes.
    let threshold = 0;
    let below = 0;
    for (; threshold < bins - 1 && below + counts[histogram + threshold]! < m; threshold++)
      below += counts[histogram + threshold]!;
    // Ties at the threshold: only as many as needed to reach m.
    let ties = m - below;
    const n = Math.min(m, total);
    if (this.chosenSlot.length < n) {
      this.chosenSlot = new Uint32Array(Math.max(n, this.chosenSlot.length * 2));
      this.chosenPartition = new Uint32Array(this.chosenSlot.length);
      this.chosenDistance = new Uint16Array(this.chosenSlot.length);
    }
    // The scan positions within the threshold, ascending; positions run partition by partition.
    const found = kernels
      ? kernels.within(s.distances, total, threshold, s.picked)
      : within(u16, distances, total, threshold, heap.u32, s.picked >>> 2);
    const picked = heap.u32;
    let chosen = 0;
    let pi = 0;
    let start = 0;
    for (let f = 0, p = s.picked >>> 2; f < found; f++, p++) {
      const position = picked[p]!;
      while (position >= start + partitions[pi]!.count) start += partitions[pi++]!.count;
      const dist = u16[distances + position]!;
      if (dist === threshold) {
        if (ties === 0) continue;
        ties--;
      }
      this.chosenPartition[chosen] = pi;
      this.chosenDistance[chosen] = dist;
      this.chosenSlot[chosen++] = position - start;
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

/**
 * Indexes of scores (cosines, about -1..1) best first, ties by index: a
 * native sort of score and index packed into one float64 (score to 2^-19),
 * then an insertion pass that orders the near-ties it left exactly. Several
 * times faster than sorting an array with a comparator.
 */
export function rankOrder(scores: Float64Array, n: number): Uint32Array {
  const packed = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const s = Math.min(1.5, Math.max(-1.5, scores[i]!));
    packed[i] = Math.floor((2 - s) * 2 ** 19) * 2 ** 32 + i;
  }
  packed.sort();
  const order = new Uint32Array(n);
  for (let r = 0; r < n; r++) order[r] = packed[r]! % 2 ** 32;
  for (let r = 1; r < n; r++) {
    const x = order[r]!;
    const sx = scores[x]!;
    let j = r - 1;
    while (j >= 0 && (scores[order[j]!]! < sx || (scores[order[j]!] === sx && order[j]! > x))) {
      order[j + 1] = order[j]!;
      j--;
    }
    order[j + 1] = x;
  }
  return order;
}

/**
 * Codes per chunk of a partition: chunks never move once full, so a partition's growth copies at most
 * one chunk. The code heap under them may grow too: in place with WebAssembly, by copying every block
 * without it.
 */
/** How many vectors `stage` quantizes a kernel call (a 384-dimension run: 96 KB of floats). */
const STAGE_RUN = 64;
const CHUNK_BITS = 12;
const CHUNK = 1 << CHUNK_BITS;
const CHUNK_MASK = CHUNK - 1;

interface Partition<K> {
  scope: string;
  tenant: string;
  namespace: string;
  /** Slot s lives in chunk s >> CHUNK_BITS at s & CHUNK_MASK. */
  chunks: Chunk[];
  /** Keys by slot; while `saved` holds the first `savedCount`, the keys appended after them. */
  keys: K[];
  /** How many codes. */
  count: number;
  /**
   * Restored: the keys by chunk as saved (a JS array of 100k keys took ~20 ms to build on a cold
   * start), until a change needs `keys`.
   */
  saved?: Float64Array[];
  savedCount?: number;
}

function align16(bytes: number): number {
  return Math.ceil(bytes / 16) * 16;
}

function keyAt<K>(p: Partition<K>, slot: number): K {
  if (!p.saved) return p.keys[slot]!;
  const saved = p.savedCount!;
  return slot < saved ? (p.saved[slot >>> CHUNK_BITS]![slot & CHUNK_MASK] as K) : p.keys[slot - saved]!;
}

/** The keys of a restored partition as an array, before a change moves them. */
function writable<K>(p: Partition<K>): Partition<K> {
  if (p.saved) {
    const keys: K[] = [];
    for (const chunk of p.saved) for (let i = 0; i < chunk.length; i++) keys.push(chunk[i] as K);
    for (const key of p.keys) keys.push(key);
    p.keys = keys;
    p.saved = undefined;
    p.savedCount = undefined;
  }
  return p;
}

/**
 * A block of the heap: `capacity` codes, then (rescoring index) a float32
 * factor per code that turns the dot product of its int8 copy with a query into
 * cosine times the query's norm, then the int8 copies.
 */
interface Chunk {
  capacity: number;
  /** Byte offset in the heap. */
  at: number;
  /**
   * Restored from saved parts, its factors and int8 copies not read yet: the part that holds them
   * (for its first `count` slots), and the slots written since (from a single code or a change), which
   * reading the part leaves alone.
   */
  lazy?: { part: number; count: number; filled: Uint8Array };
  /**
   * Restored: the chunk's sign codes as read (a view of its saved part) while the chunk has no block
   * in the heap (`at` 0). Set only while `lazy` is: reading the rescoring part, or a change, settles it.
   */
  signs?: Uint32Array;
}

/** A restored chunk's `filled` until fromParts gives it its view (no slot written). */
const NONE_FILLED = new Uint8Array(0);

/** Version of the saved layout (`toParts`): another version is not read (the caller rebuilds). */
const PARTS_FORMAT = 1;

interface SavedScope {
  tenant: string;
  namespace: string;
  count: number;
}

interface SavedHeader {
  format: number;
  dimension: number;
  /** In part order: scope i's chunks take parts 2j (keys, signs) and 2j + 1 (factors, int8), j counting chunks. */
  scopes: SavedScope[];
  /**
   * The largest saved key (`savedMax`), when finite; headers saved before it was added lack it (read
   * alike: the keys give it). Not part of PARTS_FORMAT: older code ignores it.
   */
  maxKey?: number | null;
}

/**
 * A single code as `encodeRescoring` encodes it, or the vector itself (quantized by the index into the
 * same bytes, without a buffer a code), or undefined: the key is gone.
 */
export type SavedCode = Uint8Array | Float32Array | undefined;

/** What a restored index reads later: a part by number, single codes by key. */
export interface SavedCodes<K> {
  part(n: number): Uint8Array;
  /** The codes of `keys`, in their order. */
  codes(keys: readonly K[]): SavedCode[];
}

/** A saved part or code a restored BinaryIndex needed could not be read (e.g. replaced by a newer save). */
export class BinaryPartError extends Error {
  override readonly name = 'BinaryPartError';
}

/**
 * A vector's sign-bit code (little-endian 32-bit words), then its int8 copy's
 * factor (float32, little-endian) and components: the bytes
 * `BinaryIndex.setEncoded` takes. A Buffer from Node's pool: its `buffer` is
 * shared, so read it with `byteOffset`.
 */
export function encodeRescoring(vector: Float32Array): Uint8Array {
  const words = Math.ceil(vector.length / 32);
  // From Node's buffer pool: a typed array over 64 bytes gets its own allocation (~3 us here); every
  // byte is written below.
  const out = Buffer.allocUnsafe(words * 4 + 4 + vector.length);
  if (scratch.signs.length < words) scratch.signs = new Uint32Array(words);
  writeSigns(vector, scratch.signs, 0, words);
  out.set(new Uint8Array(scratch.signs.buffer, 0, words * 4));
  quantize(vector, new Int8Array(out.buffer, out.byteOffset + words * 4 + 4, vector.length), 0, scratch.factor, 0);
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
    // Conditional moves, not a branch that a new maximum mispredicts.
    const magnitude = x < 0 ? -x : x;
    // biome-ignore lint/complexity/useMathMinMax: Math.max would carry a NaN component into every value; this skips it, as before
    max = magnitude > max ? magnitude : max;
  }
  const scale = max > 0 ? 127 / max : 0;
  // Math.round's result from floor(y + 0.5), which V8 compiles to a few instructions: with Math.round
  // and the branch above, quantizing 384 components took ~4.5 us, now ~1.2. y + 0.5 rounds up to 1 at
  // the largest double below 0.5 (and reachable from float32 inputs); the subtraction takes that back.
  for (let i = 0; i < vector.length; i++) {
    const y = vector[i]! * scale;
    const rounded = Math.floor(y + 0.5);
    out[offset + i] = rounded - +(rounded - 0.5 > y);
  }
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
  // Counted as numbers, not by a branch: in a sparse vector zero or not is a coin flip a branch mispredicts.
  for (let i = 0; i < vector.length; i++) zeros += +(vector[i] === 0);
  return zeros * 4 > vector.length;
}

/**
 * Bit i of the code is set when component i is positive. `out` (from word `offset`): where to write it
 * (a batch of codes in one buffer), else a new array.
 */
export function encodeSigns(
  vector: Float32Array,
  words = Math.ceil(vector.length / 32),
  out = new Uint32Array(words),
  offset = 0,
): Uint32Array {
  writeSigns(vector, out, offset, words);
  return out;
}

function writeSigns(vector: Float32Array, out: Uint32Array, offset: number, words: number): void {
  // Each word built in a local: a read-modify-write of the typed array per component cost 3x. The
  // comparison as a number, not a branch: signs are coin flips, so a branch was mispredicted half the
  // time (2.6 against 0.5 us for 384 components).
  for (let w = 0; w < words; w++) {
    let bits = 0;
    const end = Math.min(vector.length, (w + 1) * 32);
    for (let i = w * 32, b = 0; i < end; i++, b++) bits |= +(vector[i]! > 0) << b;
    out[offset + w] = bits;
  }
}
