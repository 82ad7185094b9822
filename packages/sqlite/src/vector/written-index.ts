import { BinaryIndex } from '@agentmem/core';
import { CHUNK, SparseIndex } from './sparse-index';
import { SparseBuilder } from './sparse-build';

/**
 * Sparse vectors a connection builds its index from as it writes them: ~303 bytes each held until the
 * close (~40 MB here); the rows above are read back from the table at close, slice by slice, as before.
 */
export const WRITTEN_SPARSE = 2 * CHUNK;

/** A committed write as the tracker takes it: rowid, scope, floats, and the sign code writtenMany encoded. */
export interface WrittenCode {
  rowid: number;
  /** Undefined: the row's vector was deleted. `encoded`: its sign bits (as the table keeps them). */
  code?: { tenant: string; namespace: string; vector: Float32Array; encoded: Uint8Array; sparse: boolean };
}

/**
 * A WrittenCode made by a constructor, not an object literal (issue 30): a literal's allocation site
 * learns that its objects live until the commit and turns to allocating them old, which throws away
 * the code compiled for it; queueWritten was deoptimized so ("code dependencies") and compiled again
 * in 8 of 28 fresh 20k ingests, 0 of 15 with these.
 */
export class WrittenRow implements WrittenCode {
  constructor(
    readonly rowid: number,
    readonly code: WrittenCode['code'],
  ) {}
}

/** A WrittenCode's code made by a constructor (WrittenRow: why). */
export class RowCode {
  constructor(
    readonly tenant: string,
    readonly namespace: string,
    readonly vector: Float32Array,
    readonly encoded: Uint8Array,
    readonly sparse: boolean,
  ) {}
}

/**
 * The dense index of a store whose codes table was empty at this connection's first write, built from
 * what its writes hold in memory as they commit, so that a bulk writer's close (or first search) does
 * not read every vector back from the table (issue 30: ~0.3 s of a 20k ingest's close). It
 * is what a load from the table would give, built the same way (rows in rowid order, the same codes),
 * so it only takes appends: a deleted or rewritten vector, a vector of the other kind (sparse among
 * dense or the reverse), or another connection's commit ends it, and the next load reads the table as
 * before. Sparse vectors go to a SparseBuilder (the table's build without the read; the first
 * `WRITTEN_SPARSE` only, the rest read as slices at close), dense ones to a BinaryIndex (the signs writtenMany
 * computed, the int8 copy quantized by the index as a load from the table does).
 */
export class WrittenIndex {
  private readonly builder: SparseBuilder | undefined;
  private readonly binary: BinaryIndex<number> | undefined;
  /** The last rowid taken (or skipped above the sparse limit): a write at or below it ends the tracking. */
  private last = Number.NEGATIVE_INFINITY;
  /** The last rowid the builder holds, and whether vectors above it were left to the table. */
  private through = Number.NEGATIVE_INFINITY;
  private capped = false;

  /**
   * `version`: the connection's `PRAGMA data_version` when it began (another connection's commit
   * changes it); `limit`: sparse vectors held (the rest are read from the table at close).
   */
  constructor(
    readonly dimension: number,
    readonly sparse: boolean,
    readonly version: number,
    private readonly limit = WRITTEN_SPARSE,
  ) {
    // The builder's scratch grows by small blocks (a writer of a few memories allocates little).
    if (sparse) this.builder = new SparseBuilder(dimension);
    else this.binary = new BinaryIndex<number>(dimension, { rescoring: true });
  }

  /** Takes one transaction's committed writes, in order; false: it cannot go on (drop it). */
  take(writes: readonly WrittenCode[]): boolean {
    // An indexed loop from the first statement: the iterator made before a for...of ran before V8 had
    // type feedback for it (a commit's first call), and the compiled take bailed out there.
    for (let i = 0; i < writes.length; i++) {
      const { rowid, code } = writes[i]!;
      if (!code || !(rowid > this.last) || code.sparse !== this.sparse) return false;
      this.last = rowid;
      if (this.builder) {
        if (this.capped) continue;
        if (this.builder.size >= this.limit) {
          this.capped = true;
          continue;
        }
        this.builder.addVector(rowid, this.builder.scope(code.tenant, code.namespace), code.vector);
        this.through = rowid;
      } else {
        // Quantized where it goes, as a commit into a loaded index does (the codes hold the signs).
        if (code.vector.length !== this.dimension) return false;
        this.binary!.set(rowid, code.tenant, code.namespace, code.vector, code.encoded);
      }
    }
    return true;
  }

  /** Vectors held. */
  get size(): number {
    return this.builder ? this.builder.size : this.binary!.size;
  }

  /**
   * The index, as a load from the table would have given it: the BinaryIndex, or the SparseIndex of the
   * builder's parts (whose `through` leaves the rows above the limit to the table's slices). Once only.
   */
  index(): BinaryIndex<number> | SparseIndex {
    if (this.binary) return this.binary;
    const { header, parts } = this.builder!.finish(this.capped ? this.through : Number.POSITIVE_INFINITY);
    return SparseIndex.fromParts(header, { part: (n) => parts[n]! });
  }
}
