/** Edits (insert, delete, replace, swap of two neighbours) that turn `a` into `b`. */
function distance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The name among `names` that `typed` most likely misspells, or undefined when `typed` is one of them or
 * none is close: at most a third of the longer name's characters differ (one edit for short names).
 */
export function closest(typed: string, names: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const name of names) {
    if (name === typed) return undefined;
    const edits = distance(typed.toLowerCase(), name.toLowerCase());
    if (edits < bestDistance && edits <= Math.max(1, Math.floor(Math.max(typed.length, name.length) / 3))) {
      best = name;
      bestDistance = edits;
    }
  }
  return best;
}
