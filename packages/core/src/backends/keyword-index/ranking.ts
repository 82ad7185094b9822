// The scoring loops of a keyword search, over typed arrays only: MaxScore and term at a time. Every
// score adds its terms' parts in query order, as core's exhaustive BM25F does, so both give its scores.

import { BM25_B, BM25_B_CONTEXT, BM25_K1, CONTEXT_WEIGHT } from '../bm25';
import type { Posting } from './packed';
import { gallop, type TopK } from './top-k';

/** A query term during a search: its postings, cursor, idf, score bound and place in the query. */
export interface Cursor {
  slots: Int32Array;
  tfs: Uint32Array;
  n: number;
  at: number;
  idf: number;
  bound: number;
  query: number;
}

/**
 * The documents a search scores: the admitted ones (`ok[at[slot]]`), each slot's text and context
 * lengths, and the collection's average lengths. One value a search, passed to every loop below.
 */
export interface ScoredDocs {
  avgText: number;
  avgContext: number;
  ok: Uint8Array;
  at: Int32Array;
  textLength: Uint32Array;
  contextLength: Uint32Array;
}

/** The query's terms as cursors, with their idf among `n` admitted documents and a bound on their score (none for df 0). */
export function cursors(
  postings: readonly Posting[],
  df: readonly number[],
  n: number,
  avgText: number,
  avgContext: number,
): Cursor[] {
  const k1 = BM25_K1;
  const b = BM25_B;
  const bc = BM25_B_CONTEXT;
  const w = CONTEXT_WEIGHT;
  const terms: Cursor[] = [];
  postings.forEach((p, query) => {
    const d = df[query]!;
    if (d === 0) return;
    const idf = Math.log(1 + (n - d + 0.5) / (d + 0.5));
    // f grows with a frequency even as the length grows with it (a field is at least as long as it).
    const f =
      p.maxText / (1 - b + (b * p.maxText) / avgText) +
      (w * p.maxContext) / (1 - bc + (bc * p.maxContext) / avgContext);
    const bound = ((idf * f * (k1 + 1)) / (f + k1)) * (1 + 1e-9) + 1e-12; // above any rounding of a real score
    terms.push({ slots: p.slots, tfs: p.tfs, n: p.n, at: 0, idf, bound, query });
  });
  return terms;
}

/**
 * Offers the heap every admitted document that may rank among its k best, by MaxScore (see
 * `KeywordIndex.maxScore`); `queries` is the number of the query's terms (the cursors' `query` values).
 */
export function walkMaxScore(terms: Cursor[], queries: number, docs: ScoredDocs, heap: TopK): void {
  const { ok, at } = docs;
  terms.sort((x, y) => x.bound - y.bound);
  const count = terms.length;
  // below[i]: the sum of the bounds of terms 0..i-1 (the weaker ones).
  const below = new Float64Array(count + 1);
  for (let i = 0; i < count; i++) below[i + 1] = below[i]! + terms[i]!.bound;
  const parts = new Float64Array(queries);
  const has = new Uint8Array(queries);
  const part = (t: Cursor, s: number) => partAt(t, t.at, s, docs);
  // A floor under the k-th score before the heap fills: the k-th best part of the strongest term
  // alone (among its first entries). A document of that term scores at least its part (0 + part,
  // then positive parts added: float addition of positives never goes below an addend), so k
  // documents score at least the floor and a document bounded below it cannot rank among the k or
  // tie with the k-th. Without it the walk scored ~4,000 documents a search at 100k before the
  // heap's own k-th rose (issue 30).
  const floor = count > 0 ? kthPart(terms[count - 1]!, heap.k, docs) : Number.NEGATIVE_INFINITY;
  // Terms [0, essential) are non-essential: together they cannot lift a document above the k-th.
  let essential = 0;
  // The heap's k-th score (-Infinity until it holds k) or the floor, kept here: read once a document and term.
  let threshold = Math.max(heap.threshold, floor);
  while (essential < count && below[essential + 1]! < threshold) essential++;
  for (;;) {
    let s = 0x7fffffff;
    for (let i = essential; i < count; i++) {
      const t = terms[i]!;
      if (t.at < t.n && t.slots[t.at]! < s) s = t.slots[t.at]!;
    }
    if (s === 0x7fffffff) break;
    if (ok[at[s]!] === 0) {
      // Not admitted: past it in the essential terms, nothing scored.
      for (let i = essential; i < count; i++) {
        const t = terms[i]!;
        if (t.at < t.n && t.slots[t.at] === s) t.at++;
      }
      continue;
    }
    let sum = 0;
    for (let i = essential; i < count; i++) {
      const t = terms[i]!;
      if (t.at < t.n && t.slots[t.at] === s) {
        const x = part(t, s);
        parts[t.query] = x;
        has[t.query] = 1;
        sum += x;
        t.at++;
      }
    }
    let skipped = false;
    for (let i = essential - 1; i >= 0; i--) {
      if (sum + below[i + 1]! < threshold) {
        skipped = true;
        break;
      }
      const t = terms[i]!;
      t.at = gallop(t.slots, t.at, t.n, s);
      if (t.at < t.n && t.slots[t.at] === s) {
        const x = part(t, s);
        parts[t.query] = x;
        has[t.query] = 1;
        sum += x;
      }
    }
    if (skipped) {
      for (let q = 0; q < queries; q++) has[q] = 0;
      continue;
    }
    // The exhaustive reference adds the terms in query order, from 0.
    let score = 0;
    for (let q = 0; q < queries; q++)
      if (has[q] === 1) {
        score = score + parts[q]!;
        has[q] = 0;
      }
    if (heap.offer(s, score)) {
      threshold = Math.max(heap.threshold, floor);
      while (essential < count && below[essential + 1]! < threshold) essential++;
    }
  }
}

/**
 * One term's BM25F part for slot `s` at its postings entry `i`: the one arithmetic of `walkMaxScore`'s
 * scores and `kthPart`'s floor (the floor is only safe while both give the same floats).
 */
function partAt(t: Cursor, i: number, s: number, docs: ScoredDocs): number {
  const packed = t.tfs[i]!;
  const fc = packed >>> 16;
  let f = (packed & 0xffff) / (1 - BM25_B + (BM25_B * docs.textLength[s]!) / docs.avgText);
  if (fc !== 0)
    f += (CONTEXT_WEIGHT * fc) / (1 - BM25_B_CONTEXT + (BM25_B_CONTEXT * docs.contextLength[s]!) / docs.avgContext);
  return (t.idf * f * (BM25_K1 + 1)) / (f + BM25_K1);
}

/** Postings entries of the strongest term `walkMaxScore` takes its floor from. */
const FLOOR_SAMPLE = 1024;

/**
 * The k-th largest of one term's parts among the admitted documents of its first FLOOR_SAMPLE entries
 * (-Infinity when fewer than k): each computed as `walkMaxScore` computes it.
 */
function kthPart(t: Cursor, k: number, docs: ScoredDocs): number {
  const { ok, at } = docs;
  if (t.n < k || k <= 0) return Number.NEGATIVE_INFINITY;
  // Its first entries only: the k-th of a subset is no higher than the k-th of all, and past ~1,000
  // entries the scan cost more than the higher floor saved (in-process rounds at 100k).
  const sample = Math.min(t.n, FLOOR_SAMPLE);
  const parts = scratchOf(sample);
  let m = 0;
  for (let i = 0; i < sample; i++) {
    const s = t.slots[i]!;
    if (ok[at[s]!] === 0) continue;
    parts[m++] = partAt(t, i, s, docs);
  }
  return m < k ? Number.NEGATIVE_INFINITY : selectAscending(parts, m, m - k);
}

let scratch = new Float64Array(0);
/** A reused block of at least n float64s (its contents are the caller's to overwrite). */
function scratchOf(n: number): Float64Array {
  if (scratch.length < n) scratch = new Float64Array(Math.max(n, scratch.length * 2));
  return scratch;
}

/**
 * The value at `index` of `values[0, n)` sorted ascending (what `sort()` would put there), found by
 * quickselect: O(n) instead of a sort's O(n log n). Reorders `values[0, n)`. Finite values only (-0
 * and 0 count as one: sort() would put -0 first).
 */
export function selectAscending(values: Float64Array, n: number, index: number): number {
  let lo = 0;
  let hi = n - 1;
  while (hi > lo) {
    // Median of three as the pivot: sorted and reversed runs stay linear.
    const mid = (lo + hi) >>> 1;
    const a = values[lo]!;
    const c = values[mid]!;
    const pivot = Math.max(Math.min(a, c), Math.min(Math.max(a, c), values[hi]!));
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (values[i]! < pivot) i++;
      while (values[j]! > pivot) j--;
      if (i <= j) {
        const v = values[i]!;
        values[i] = values[j]!;
        values[j] = v;
        i++;
        j--;
      }
    }
    // [lo, j] <= pivot, [i, hi] >= pivot, and (j, i) all equal the pivot.
    if (index <= j) hi = j;
    else if (index >= i) lo = i;
    else return values[index]!;
  }
  return values[index]!;
}

/**
 * Each admitted slot's score into `scores`, one term at a time in query order: the slots scored, each
 * once in the order of its first entry, into `matched` (room for the terms' entries); returns how many.
 * `seen[s] === generation` marks them.
 */
export function scoreTermAtATime(
  terms: readonly Cursor[],
  docs: ScoredDocs,
  scores: Float64Array,
  seen: Uint8Array,
  generation: number,
  matched: Int32Array,
): number {
  const { avgText, avgContext, ok, at, textLength, contextLength } = docs;
  const k1 = BM25_K1;
  const b = BM25_B;
  const bc = BM25_B_CONTEXT;
  const w = CONTEXT_WEIGHT;
  // The admitted slots, each once, in the order of their first entry. One pass over the entries: a
  // cold process runs it in V8's interpreter, where each extra pass costs about as much again.
  let m = 0;
  for (const t of terms) {
    const { slots, tfs, idf } = t;
    for (let i = 0; i < t.n; i++) {
      const s = slots[i]!;
      if (ok[at[s]!] === 0) continue;
      const packed = tfs[i]!;
      const fc = packed >>> 16;
      let f = (packed & 0xffff) / (1 - b + (b * textLength[s]!) / avgText);
      if (fc !== 0) f += (w * fc) / (1 - bc + (bc * contextLength[s]!) / avgContext);
      const x = (idf * f * (k1 + 1)) / (f + k1);
      if (seen[s] === generation) scores[s] = scores[s]! + x;
      else {
        // The first term's part alone: what 0 + part gives (parts are positive).
        seen[s] = generation;
        scores[s] = x;
        matched[m++] = s;
      }
    }
  }
  return m;
}

/** The k-th best of the matched slots' scores (-Infinity when k or fewer matched). */
export function kthScore(scores: Float64Array, matched: Int32Array, m: number, k: number): number {
  // Only the slots scoring at least the k-th best score can be kept: the heap sees those (k and its
  // ties) instead of every match, each offer a few calls the interpreter pays for.
  if (m > k) {
    const values = scratchOf(m);
    for (let i = 0; i < m; i++) values[i] = scores[matched[i]!]!;
    return selectAscending(values, m, m - k);
  }
  return Number.NEGATIVE_INFINITY;
}
