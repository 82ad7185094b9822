// A keyword search's scores by slot and a term-at-a-time search's matched slots, in one WebAssembly
// memory, so that the loops after the scoring (the k-th best score, the slots at or above it) run in
// keyword-kernels.wat instead of V8's interpreter on a cold process's first search.

import { KEYWORD_KERNELS_WASM_BASE64 } from '../kernels/keyword-kernels-wasm';
import { kthScore } from './ranking';

interface KeywordKernels {
  kth(scores: number, matched: number, m: number, index: number, values: number): number;
  atLeast(scores: number, matched: number, m: number, least: number, out: number): number;
}

/** The part of the WebAssembly API used here (core's type library has no WebAssembly declarations). */
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: unknown };
  Memory: new (descriptor: { initial: number }) => { readonly buffer: ArrayBuffer };
}

const PAGE = 65_536;

let compiled: object | null | undefined;

/** The compiled keyword kernels, or null where WebAssembly is missing (then the JS loops run). */
function keywordModule(): object | null {
  if (compiled === undefined) {
    try {
      const wasm = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
      compiled = wasm ? new wasm.Module(Buffer.from(KEYWORD_KERNELS_WASM_BASE64, 'base64')) : null;
    } catch {
      compiled = null;
    }
  }
  return compiled;
}

/**
 * The scores (float64 by slot) and matched slots (int32) of a search, with the kernels' room beside
 * them: a copy of the matched scores for the k-th (float64) and the slots at or above it (int32).
 * `reserve` makes room before a search; a larger memory is a new one (its views re-made, contents not
 * kept: they are a search's scratch), never a grown one (growing a WebAssembly memory can make V8
 * collect garbage). Without WebAssembly the same answers come from JS loops over plain arrays.
 */
export class ScoreBlock {
  scores = new Float64Array(0);
  matched = new Int32Array(0);
  private kernels: KeywordKernels | undefined;
  private out = new Int32Array(0);
  private slots = 0;
  private entries = 0;
  private matchedAt = 0;
  private valuesAt = 0;
  private outAt = 0;

  constructor(private readonly wasm = true) {}

  /** Whether the kernels run in WebAssembly (else the JS loops). */
  get wasmKernels(): boolean {
    return this.kernels !== undefined;
  }

  /** Room for `slots` scores and `entries` matched slots (the views may be new ones afterwards). */
  reserve(slots: number, entries: number): void {
    if (slots <= this.slots && entries <= this.entries) return;
    // Doubling what outgrew its room keeps growth amortised; the other part keeps its size.
    const s = slots > this.slots ? Math.max(slots, this.slots * 2) : this.slots;
    const e = entries > this.entries ? Math.max(entries, this.entries * 2) : this.entries;
    const module = this.wasm ? keywordModule() : null;
    if (module) {
      try {
        const wasm = (globalThis as { WebAssembly?: WasmApi }).WebAssembly!;
        // [scores: s f64][values: e f64][matched: e i32][out: e i32]
        const valuesAt = s * 8;
        const matchedAt = valuesAt + e * 8;
        const outAt = matchedAt + e * 4;
        const memory = new wasm.Memory({ initial: Math.max(1, Math.ceil((outAt + e * 4) / PAGE)) });
        this.kernels = new wasm.Instance(module, { keyword: { memory } }).exports as KeywordKernels;
        const buffer = memory.buffer;
        this.scores = new Float64Array(buffer, 0, s);
        this.matched = new Int32Array(buffer, matchedAt, e);
        this.out = new Int32Array(buffer, outAt, e);
        this.valuesAt = valuesAt;
        this.matchedAt = matchedAt;
        this.outAt = outAt;
        this.slots = s;
        this.entries = e;
        return;
      } catch {
        // No room for another WebAssembly memory in this process: plain arrays and the JS loops.
      }
    }
    this.kernels = undefined;
    this.scores = new Float64Array(s);
    this.matched = new Int32Array(e);
    this.out = new Int32Array(e);
    this.slots = s;
    this.entries = e;
  }

  /** The k-th best of the first m matched slots' scores (-Infinity when k or fewer matched). */
  kth(m: number, k: number): number {
    if (m <= k) return Number.NEGATIVE_INFINITY;
    if (!this.kernels) return kthScore(this.scores, this.matched, m, k);
    return this.kernels.kth(0, this.matchedAt, m, m - k, this.valuesAt);
  }

  /** The first m matched slots whose score is at least `least`, in their order (a view, until the next `reserve`). */
  atLeast(m: number, least: number): Int32Array {
    if (this.kernels) return this.out.subarray(0, this.kernels.atLeast(0, this.matchedAt, m, least, this.outAt));
    const { scores, matched, out } = this;
    let n = 0;
    for (let i = 0; i < m; i++) if (scores[matched[i]!]! >= least) out[n++] = matched[i]!;
    return out.subarray(0, n);
  }
}
