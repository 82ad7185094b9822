import { invalidInput } from '@agentmem/core';

/** A paging cursor: the token of a kept list and the last item returned. */
export function encodeCursor(token: string, after: string): string {
  return Buffer.from(JSON.stringify({ s: token, a: after }), 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string): { token: string; after: string } {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { s?: unknown; a?: unknown };
    if (typeof parsed.s === 'string' && typeof parsed.a === 'string') return { token: parsed.s, after: parsed.a };
  } catch {
    // fall through
  }
  throw invalidInput('Invalid cursor: pass the cursor of the previous page unchanged.');
}

/** Index of the first id greater than `after` in a sorted list. */
export function upperBound(ids: readonly string[], after: string): number {
  let lo = 0;
  let hi = ids.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ids[mid]! <= after) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
