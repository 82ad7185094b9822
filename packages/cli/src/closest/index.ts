import { editDistance } from '@agentmem/core';

/**
 * The name among `names` that `typed` most likely misspells, or undefined when `typed` is one of them or
 * none is close: at most a third of the longer name's characters differ (one edit for short names).
 */
export function closest(typed: string, names: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const name of names) {
    if (name === typed) return undefined;
    const edits = editDistance(typed.toLowerCase(), name.toLowerCase());
    if (edits < bestDistance && edits <= Math.max(1, Math.floor(Math.max(typed.length, name.length) / 3))) {
      best = name;
      bestDistance = edits;
    }
  }
  return best;
}
