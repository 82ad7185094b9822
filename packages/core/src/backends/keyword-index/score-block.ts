// A keyword search's scores by slot and a term-at-a-time search's scratch, in one WebAssembly memory,
// so that the search's loops over float64 (each term's parts, the k-th best score, the slots at or
// above it) run in keyword-kernels.wat instead of V8's interpreter on a cold process's first search.

import { BM25_B, BM25_B_CONTEXT, BM25_K1, CONTEXT_WEIGHT } from '../bm25';
import { KEYWORD_KERNELS_WASM_BASE64 } from '../kernels/keyword-kernels-wasm';
import { type Cursor, kthScore, type ScoredDocs, scoreTermAtATime } from './ranking';

interface KeywordKernels {
  score(
    slots: number,
    tfs: number,
    texts: number,
    contexts: number,
    n: number,
    idf: number,
    avgText: number,
    avgContext: number,
    k1: number,
    b: number,
    bc: number,
    w: number,
    scores: number,
    seen: number,
    generation: number,
    matched: number,
    m: number,
  ): number;
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

/** Where the kernels' blocks lie in the memory (byte offsets). */
interface Layout {
  kernels: KeywordKernels;
  values: number;
  seen: number;
  matched: number;
  out: number;
  slots: number;
  tfs: number;
  texts: number;
  contexts: number;
  /** Views of the gathered entries: slot (-1: not admitted), packed frequencies, text and context lengths. */
  slotsView: Int32Array;
  tfsView: Uint32Array;
  textsView: Uint32Array;
  contextsView: Uint32Array;
}

/**
 * The scores (float64 by slot), seen marks (a byte by slot) and matched slots (int32) of a search, with
 * the kernels' room beside them. `reserve` makes room before a search; a larger memory is a new one
 * (its views re-made, scores and marks zeroed: a search's scratch), never a grown one (growing a
 * WebAssembly memory can make V8 collect garbage). Without WebAssembly the same answers come from the
 * JS loops (ranking.ts) over plain arrays.
 */
export class ScoreBlock {
  scores = new Float64Array(0);
  matched = new Int32Array(0);
  private seen = new Uint8Array(0);
  private generation = 0;
  private out = new Int32Array(0);
  private layout: Layout | undefined;
  private slots = 0;
  private entries = 0;

  constructor(private readonly wasm = true) {}

  /** Whether the kernels run in WebAssembly (else the JS loops). */
  get wasmKernels(): boolean {
    return this.layout !== undefined;
  }

  /** Room for `slots` scores and `entries` postings entries (the views may be new ones afterwards). */
  reserve(slots: number, entries: number): void {
    if (slots <= this.slots && entries <= this.entries) return;
    // Doubling what outgrew its room keeps growth amortised; the other part keeps its size.
    const s = slots > this.slots ? Math.max(slots, this.slots * 2) : this.slots;
    const e = entries > this.entries ? Math.max(entries, this.entries * 2) : this.entries;
    this.slots = s;
    this.entries = e;
    this.generation = 0;
    const module = this.wasm ? keywordModule() : null;
    if (module) {
      try {
        const wasm = (globalThis as { WebAssembly?: WasmApi }).WebAssembly!;
        // [scores: s f64][values: e f64][matched, out, slots, tfs, texts, contexts: e i32 each][seen: s u8];
        // no marks for MaxScore alone (no entries: 1 MB less at 1M documents).
        const values = s * 8;
        const matched = values + e * 8;
        const out = matched + e * 4;
        const gathered = out + e * 4;
        const seen = gathered + e * 16;
        const marks = e > 0 ? s : 0;
        const memory = new wasm.Memory({ initial: Math.max(1, Math.ceil((seen + marks) / PAGE)) });
        const kernels = new wasm.Instance(module, { keyword: { memory } }).exports as KeywordKernels;
        const buffer = memory.buffer;
        this.scores = new Float64Array(buffer, 0, s);
        this.matched = new Int32Array(buffer, matched, e);
        this.out = new Int32Array(buffer, out, e);
        this.seen = new Uint8Array(buffer, seen, marks);
        const at = (i: number) => gathered + i * e * 4;
        this.layout = {
          kernels,
          values,
          seen,
          matched,
          out,
          slots: at(0),
          tfs: at(1),
          texts: at(2),
          contexts: at(3),
          slotsView: new Int32Array(buffer, at(0), e),
          tfsView: new Uint32Array(buffer, at(1), e),
          textsView: new Uint32Array(buffer, at(2), e),
          contextsView: new Uint32Array(buffer, at(3), e),
        };
        return;
      } catch {
        // No room for another WebAssembly memory in this process: plain arrays and the JS loops.
      }
    }
    this.layout = undefined;
    this.scores = new Float64Array(s);
    this.matched = new Int32Array(e);
    this.out = new Int32Array(e);
    this.seen = new Uint8Array(e > 0 ? s : 0);
  }

  /**
   * Each admitted slot's score into `scores`, one term at a time in query order (ranking.ts's
   * scoreTermAtATime): the slots scored, each once in the order of its first entry, into `matched`;
   * returns how many. Call `reserve` first with the terms' entries.
   */
  score(terms: readonly Cursor[], docs: ScoredDocs): number {
    // Which slots this search scored: `generation` (1-255) marks them, so no pass clears the marks
    // but one in 255 searches.
    if (this.generation === 0xff) {
      this.seen.fill(0);
      this.generation = 0;
    }
    const generation = ++this.generation;
    const layout = this.layout;
    if (!layout) return scoreTermAtATime(terms, docs, this.scores, this.seen, generation, this.matched);
    const { kernels, slotsView, textsView, contextsView } = layout;
    const { avgText, avgContext, ok, at, textLength, contextLength } = docs;
    let m = 0;
    for (const t of terms) {
      // The entries' slots and lengths gathered (integers only: no heap number in the interpreter).
      const { slots, n } = t;
      for (let i = 0; i < n; i++) {
        const s = slots[i]!;
        if (ok[at[s]!] === 0) slotsView[i] = -1;
        else {
          slotsView[i] = s;
          textsView[i] = textLength[s]!;
          contextsView[i] = contextLength[s]!;
        }
      }
      layout.tfsView.set(t.tfs.subarray(0, n));
      m = kernels.score(
        layout.slots,
        layout.tfs,
        layout.texts,
        layout.contexts,
        n,
        t.idf,
        avgText,
        avgContext,
        BM25_K1,
        BM25_B,
        BM25_B_CONTEXT,
        CONTEXT_WEIGHT,
        0,
        layout.seen,
        generation,
        layout.matched,
        m,
      );
    }
    return m;
  }

  /** The k-th best of the first m matched slots' scores (-Infinity when k or fewer matched). */
  kth(m: number, k: number): number {
    if (m <= k) return Number.NEGATIVE_INFINITY;
    const layout = this.layout;
    if (!layout) return kthScore(this.scores, this.matched, m, k);
    return layout.kernels.kth(0, layout.matched, m, m - k, layout.values);
  }

  /** The first m matched slots whose score is at least `least`, in their order (a view, until the next `reserve`). */
  atLeast(m: number, least: number): Int32Array {
    const layout = this.layout;
    if (layout) return this.out.subarray(0, layout.kernels.atLeast(0, layout.matched, m, least, layout.out));
    const { scores, matched, out } = this;
    let n = 0;
    for (let i = 0; i < m; i++) if (scores[matched[i]!]! >= least) out[n++] = matched[i]!;
    return out.subarray(0, n);
  }
}
