// The k best slots of a keyword search, ties by id; and the galloping search over a term's postings.

/**
 * The k best slots by (score desc, id asc) seen so far: a heap by score whose root is the lowest kept,
 * and beside it the slots that tie with that lowest score but left or did not enter the heap. Ties are
 * ordered by id only once, in `sorted`: ordering them as they came made a cold first search read ids
 * (or the whole id order) for slots that a higher score then pushed out.
 */
export class TopK {
  private readonly heap: number[] = [];
  /** Slots scoring the heap's lowest score, not in it. */
  private tied: number[] = [];

  constructor(
    readonly k: number,
    /** Scores by slot, written here for the slots offered. */
    private readonly scores: Float64Array,
    /** Whether slot a's id sorts after slot b's (ties go by id). */
    private readonly after: (a: number, b: number) => boolean,
    /** Told the slots whose order `sorted` is about to compare (an index reads their ids in one go). */
    private readonly ready?: (slots: readonly number[]) => void,
  ) {}

  get full(): boolean {
    return this.heap.length === this.k;
  }

  /** The k-th score once full (a document scoring below it cannot enter). */
  get threshold(): number {
    return this.full ? this.scores[this.heap[0]!]! : Number.NEGATIVE_INFINITY;
  }

  /** Keeps the slot if it ranks among the k best; true when it was kept. */
  offer(slot: number, score: number): boolean {
    const heap = this.heap;
    const scores = this.scores;
    if (heap.length === this.k) {
      const root = heap[0]!;
      const worst = scores[root]!;
      if (score < worst) return false;
      scores[slot] = score;
      if (score === worst) {
        this.tied.push(slot);
        return true;
      }
      heap[0] = slot;
      this.down(0);
      // The root left: it still ties with the heap's lowest, or that score (and its ties) is out.
      if (scores[heap[0]!] === worst) this.tied.push(root);
      else this.tied.length = 0;
      return true;
    }
    scores[slot] = score;
    heap.push(slot);
    for (let i = heap.length - 1; i > 0; ) {
      const parent = (i - 1) >> 1;
      if (scores[heap[i]!]! >= scores[heap[parent]!]!) break;
      [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
      i = parent;
    }
    return true;
  }

  /** Best first: the k best of the heap and the slots tied with its lowest score, ties by id. */
  sorted(): number[] {
    const slots = this.tied.length > 0 ? [...this.heap, ...this.tied] : [...this.heap];
    this.ready?.(slots);
    return slots.sort((a, b) => (this.worse(a, b) ? 1 : this.worse(b, a) ? -1 : 0)).slice(0, this.k);
  }

  /** Whether a ranks below b. */
  private worse(a: number, b: number): boolean {
    const sa = this.scores[a]!;
    const sb = this.scores[b]!;
    return sa < sb || (sa === sb && this.after(a, b));
  }

  /** Sifts down by score alone (ties are ordered in `sorted`). */
  private down(i: number): void {
    const heap = this.heap;
    const scores = this.scores;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < heap.length && scores[heap[l]!]! < scores[heap[m]!]!) m = l;
      if (r < heap.length && scores[heap[r]!]! < scores[heap[m]!]!) m = r;
      if (m === i) return;
      [heap[i], heap[m]] = [heap[m]!, heap[i]!];
      i = m;
    }
  }
}

/** The first position at or after `from` whose slot is >= s (postings are in slot order): galloping, then binary search. */
export function gallop(slots: Int32Array, from: number, n: number, s: number): number {
  if (from >= n || slots[from]! >= s) return from;
  let step = 1;
  let lo = from;
  let hi = from + 1;
  while (hi < n && slots[hi]! < s) {
    lo = hi;
    step *= 2;
    hi = from + step;
  }
  if (hi > n) hi = n;
  // slots[lo] < s; slots[hi] >= s or hi === n.
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (slots[mid]! < s) lo = mid;
    else hi = mid;
  }
  return hi;
}
