/**
 * Rows per multi-row statement: a few fixed sizes, so that few statements are
 * prepared and cached. 128 rows of the widest insert (13 values) stay far
 * below SQLite's limit of 32,766 parameters.
 */
const CHUNK_SIZES = [128, 32, 8, 1];

/** [offset, size] pieces covering 0..count with the given sizes (default CHUNK_SIZES), largest first. */
export function chunks(count: number, sizes: readonly number[] = CHUNK_SIZES): [number, number][] {
  const pieces: [number, number][] = [];
  let offset = 0;
  for (const size of sizes) {
    while (count - offset >= size) {
      pieces.push([offset, size]);
      offset += size;
    }
  }
  return pieces;
}

/** `tuple, tuple, ...` (size times), the VALUES list of a multi-row insert. */
export function valuesList(tuple: string, size: number): string {
  return Array(size).fill(tuple).join(', ');
}
