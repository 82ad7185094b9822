/**
 * Consecutive runs of items of one shape (the same statement serves a run). A
 * repeated id ends a run: its second change must see the first, as one
 * statement per item in order would.
 */
export function* shapeRuns<T extends { id: string; shape: string }>(items: readonly T[]): Generator<T[]> {
  for (let start = 0; start < items.length; ) {
    const { shape } = items[start]!;
    const ids = new Set<string>();
    let end = start;
    while (end < items.length && items[end]!.shape === shape && !ids.has(items[end]!.id)) ids.add(items[end++]!.id);
    yield items.slice(start, end);
    start = end;
  }
}
