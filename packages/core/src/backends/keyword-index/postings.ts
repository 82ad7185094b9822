// A term's postings in memory as writes make them: empty, counted into, grown, and a restored index's
// saved ones with its writes' pending ones after them.

import { Posting } from './packed';

/** The saved postings with a write's pending ones after them (their slots are all past the saved ones). */
export function appended(saved: Posting, pending: Posting): Posting {
  const n = saved.n + pending.n;
  const slots = new Int32Array(Math.max(4, n + (n >> 3)));
  slots.set(saved.slots.subarray(0, saved.n));
  slots.set(pending.slots.subarray(0, pending.n), saved.n);
  const tfs = new Uint32Array(slots.length);
  tfs.set(saved.tfs.subarray(0, saved.n));
  tfs.set(pending.tfs.subarray(0, pending.n), saved.n);
  const df = new Int32Array(Math.max(saved.df.length, pending.df.length));
  df.set(saved.df);
  for (let c = 0; c < pending.df.length; c++) df[c]! += pending.df[c]!;
  return new Posting(
    slots,
    tfs,
    n,
    df,
    Math.max(saved.maxText, pending.maxText),
    Math.max(saved.maxContext, pending.maxContext),
  );
}

export const EMPTY_POSTING = new Posting(new Int32Array(0), new Uint32Array(0), 0, new Int32Array(0), 0, 0);

export function emptyPosting(): Posting {
  return new Posting(new Int32Array(4), new Uint32Array(4), 0, new Int32Array(4), 0, 0);
}

/** One more document of class c holds the posting's term. */
export function countDf(p: Posting, c: number): void {
  if (p.df.length <= c) p.df = grown(p.df, new Int32Array(Math.max(c + 1, p.df.length * 2)));
  p.df[c]!++;
}

export function grown<T extends Int32Array | Uint32Array | Float64Array>(from: T, to: T): T {
  to.set(from);
  return to;
}
