import { KERNELS_WASM_BASE64 } from './kernels-wasm';

/** The SIMD loops of kernels.wat, over the heap's memory (byte offsets). */
export interface Kernels {
  /** Hamming distances of n codes (`vectors` 16-byte blocks each) to the query code: u16 at `out`, counted in the u32 histogram. */
  hamming(codes: number, n: number, vectors: number, query: number, out: number, histogram: number): void;
  /**
   * `hamming` for codes of 3 blocks by scalar popcounts (the same distances and histogram), on x86-64
   * only, where it is the faster of the two; undefined elsewhere.
   */
  hamming3: ((codes: number, n: number, query: number, out: number, histogram: number) => void) | undefined;
  /** Dot product of `blocks` x 16 int8 components with as many int16 ones. */
  dot8(code: number, query: number, blocks: number): number;
  /**
   * For each of n candidates (u32 byte offsets of their int8 copies at `codes`, u32 f32 indexes of their
   * factors at `factors`): dot8 with the int16 query / scale * factor / length, as f64 at `out`.
   */
  rank8(
    codes: number,
    factors: number,
    n: number,
    query: number,
    blocks: number,
    scale: number,
    length: number,
    out: number,
  ): void;
  /** The indexes (ascending, u32 at `out`) of the n u16 at `distances` that are at most `threshold`; returns how many. */
  within(distances: number, n: number, threshold: number, out: number): number;
  /** The int8 copy (at `out`) and factor (f32 at byte `factor`) of d float32 at `vector`: the bytes of JS `quantize`. */
  quantize(vector: number, d: number, out: number, factor: number): void;
  /** `quantize` of n vectors side by side at `vector`: int8 copies every `stride` bytes from `out`, factors every 4 from `factor`. */
  quantizeMany(vector: number, d: number, out: number, factor: number, n: number, stride: number): void;
  /** The cosine of the d float32 at byte offsets `a` and `b`: the number JS `cosineSimilarity` gives. */
  cosine(a: number, b: number, d: number): number;
}

/** The part of the WebAssembly API used here (core's type library has no WebAssembly declarations). */
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: unknown };
}

interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}

let compiled: object | null | undefined;

/** The compiled kernels, or null where WebAssembly or its SIMD is missing (then the JS loops run). */
function kernelsModule(): object | null {
  if (compiled === undefined) {
    try {
      const wasm = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
      // Node's decoder: Uint8Array.from(atob(...), mapper) ran the mapper ~3,000 times in a cold
      // process (0.6-0.9 ms of CPU; ~0.01 this way).
      const bytes = Buffer.from(KERNELS_WASM_BASE64, 'base64');
      // Under 4 KB: compiling it synchronously is allowed everywhere (browsers refused above 4 KB).
      // No WebAssembly.validate first: the compile validates too (a CompileError without SIMD: caught
      // below), and a cold process paid ~0.3 ms for the second pass.
      compiled = wasm ? new wasm.Module(bytes) : null;
    } catch {
      compiled = null;
    }
  }
  return compiled;
}

const PAGE = 65_536;

/** x86-64, where WebAssembly's i64.popcnt is one instruction and its i8x16.popcnt several. */
const X64 = (globalThis as { process?: { arch?: string } }).process?.arch === 'x64';

/**
 * One growable memory that holds the codes of a BinaryIndex, addressed by
 * byte offsets: the memory of a WebAssembly instance, so that its SIMD
 * kernels scan the codes where they lie (4-5x faster than the JS loops), or a
 * plain ArrayBuffer where WebAssembly cannot run (or once the index outgrows
 * WebAssembly's 4 GiB). Blocks are 16-byte aligned and recycled by size; views
 * are re-made whenever the memory grows (growing detaches the old buffer).
 */
export class CodeHeap {
  kernels: Kernels | undefined;
  u8!: Uint8Array;
  i8!: Int8Array;
  u16!: Uint16Array;
  i16!: Int16Array;
  u32!: Uint32Array;
  f32!: Float32Array;
  f64!: Float64Array;
  private memory: WasmMemory | undefined;
  private top = 16; // offset 0 is never handed out
  private readonly free = new Map<number, number[]>();

  constructor(options: { simd?: boolean } = {}) {
    const module = options.simd === false ? null : kernelsModule();
    try {
      if (module) {
        const wasm = (globalThis as { WebAssembly?: WasmApi }).WebAssembly!;
        const exports = new wasm.Instance(module, {}).exports as Kernels & { memory: WasmMemory };
        this.memory = exports.memory;
        this.kernels = {
          hamming: exports.hamming,
          hamming3: X64 ? exports.hamming3 : undefined,
          dot8: exports.dot8,
          rank8: exports.rank8,
          within: exports.within,
          quantize: exports.quantize,
          quantizeMany: exports.quantizeMany,
          cosine: exports.cosine,
        };
        this.view(this.memory.buffer);
        return;
      }
    } catch {
      // No room for another WebAssembly memory in this process: this index runs the JS loops.
    }
    this.view(new ArrayBuffer(PAGE));
  }

  /** A block of at least `bytes` bytes (rounded up to 16); views may have been re-made. */
  alloc(bytes: number): number {
    const size = align(bytes);
    const recycled = this.free.get(size)?.pop();
    if (recycled !== undefined) return recycled;
    const at = this.top;
    this.top += size;
    if (this.top > this.u8.byteLength) this.grow(this.top);
    return at;
  }

  /**
   * Grows the memory once so that `bytes` more can be allocated without growing again: a restore
   * that allocated chunk by chunk grew it ~30 times at 100k codes, and each growth of a WebAssembly
   * memory can make V8 collect garbage (10-35 ms of a cold start).
   */
  reserve(bytes: number): void {
    if (this.top + bytes > this.u8.byteLength) this.grow(this.top + bytes);
  }

  /** Gives a block back (the same size it was allocated with). */
  release(at: number, bytes: number): void {
    const size = align(bytes);
    const list = this.free.get(size);
    if (list) list.push(at);
    else this.free.set(size, [at]);
  }

  private grow(needed: number): void {
    // At least a quarter more each time: growth stays amortised.
    const target = Math.max(needed, Math.ceil(this.u8.byteLength * 1.25));
    if (this.memory) {
      const pages = Math.ceil((target - this.memory.buffer.byteLength) / PAGE);
      try {
        this.memory.grow(pages);
        this.view(this.memory.buffer);
        return;
      } catch {
        // Past what a WebAssembly memory can hold: carry on in an ArrayBuffer with the JS loops.
        this.memory = undefined;
        this.kernels = undefined;
      }
    }
    const bigger = new ArrayBuffer(Math.ceil(target / PAGE) * PAGE);
    new Uint8Array(bigger).set(this.u8);
    this.view(bigger);
  }

  private view(buffer: ArrayBuffer): void {
    this.u8 = new Uint8Array(buffer);
    this.i8 = new Int8Array(buffer);
    this.u16 = new Uint16Array(buffer);
    this.i16 = new Int16Array(buffer);
    this.u32 = new Uint32Array(buffer);
    this.f32 = new Float32Array(buffer);
    this.f64 = new Float64Array(buffer);
  }
}

function align(bytes: number): number {
  return Math.ceil(bytes / 16) * 16;
}
