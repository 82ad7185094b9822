/**
 * Rows per multi-row statement: a few fixed sizes, so that few statements are
 * prepared and cached. 128 rows of the widest insert (13 values) stay far
 * below SQLite's limit of 32,766 parameters.
 */
export const CHUNK_SIZES: readonly number[] = [128, 32, 8, 1];

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

/**
 * Reused argument arrays of multi-row statements, one per count of values (a statement's rows times
 * the values a row binds); the caller empties one after its statement.
 */
export class ChunkArgs {
  private readonly byCount = new Map<number, unknown[]>();

  /** The array for `size` rows of `perRow` values. */
  of(size: number, perRow: number): unknown[] {
    return this.byCount.get(size * perRow) ?? this.made(size, perRow);
  }

  /**
   * Those of every chunk size (CHUNK_SIZES) at `perRow` values a row, made at once: made one size at
   * a time, a batch's first smaller chunk (its end) ran code V8 had compiled without ever seeing it
   * run, which sent the caller's loop back to the interpreter and compiled it again (issue 30, ingest-17).
   */
  private made(size: number, perRow: number): unknown[] {
    for (const s of [size, ...CHUNK_SIZES])
      if (!this.byCount.has(s * perRow)) this.byCount.set(s * perRow, new Array(s * perRow).fill(undefined));
    return this.byCount.get(size * perRow)!;
  }
}

/** `tuple, tuple, ...` (size times), the VALUES list of a multi-row insert. */
function valuesList(tuple: string, size: number): string {
  return Array(size).fill(tuple).join(', ');
}

/**
 * `head VALUES tuple, ...` for a number of rows, each text built once: the
 * text is also the key of the statement cache, and a new one per chunk (~6 KB
 * for 128 records) was built and hashed again every time.
 */
export function multiRowInsert(head: string, tuple: string): (size: number) => string {
  const bySize = new Map<number, string>();
  return (size) => {
    let sql = bySize.get(size);
    if (sql === undefined) {
      sql = `${head} VALUES ${valuesList(tuple, size)}`;
      bySize.set(size, sql);
    }
    return sql;
  };
}
