// writtenMany's loops over a batch of vectors, as module functions of their own. In the method they
// made V8 compile the whole of it (its statement cache, chunking and the index's bookkeeping) five to
// six times in a fresh process's first bulk write: a "code dependencies" deopt when the long-lived
// per-row objects' allocation site was pretenured, then "wrong map" and "not a Smi" deopts
// (docs/benchmarks.md, ingest-15 and ingest-16). A small function is compiled for its one loop.
import { isSparse } from '@agentmem/core';
import { ChunkArgs } from '../records';
import { codeBlob } from '../schema';
import type { WrittenVector } from './dense-index';
import { RowCode, type WrittenCode, WrittenRow } from './written-index';

/**
 * Each row's sign code as the codes table keeps it (`words` 32-bit words): views of one buffer for the
 * batch (a code is 48 bytes at 384 dims: an allocation each cost more); a vector of another length
 * gets its own code, cut to the table's length (the caller's checks report it). `sparse[i]`: whether
 * row i's vector is sparse (a lexical embedder's), as `isSparse` says, counted in the same pass over
 * its components (a pass of its own cost ~1 us a 384-dim row).
 */
export function signCodes(
  rows: readonly WrittenVector[],
  dimension: number,
  words: number,
  sparse: boolean[],
): Uint8Array[] {
  const signBytes = words * 4;
  const signs = new Uint32Array(rows.length * words);
  const codes: Uint8Array[] = new Array(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const floats = rows[i]!.floats;
    if (floats.length !== dimension) {
      codes[i] = codeBlob(floats).subarray(0, signBytes);
      sparse[i] = isSparse(floats);
    } else {
      sparse[i] = signsInto(floats, signs, i * words, words);
      // A view by the constructor: `subarray` looks up the species constructor each time.
      codes[i] = new Uint8Array(signs.buffer, i * signBytes, signBytes);
    }
  }
  return codes;
}

/**
 * `encodeSigns(vector, words, out, offset)` (bit i of the code set when component i is positive: the
 * same bits), returning `isSparse(vector)` (more than a quarter of the components zero) from the same
 * pass. Both counted as numbers, not by branches (signs and zeros are coin flips); the tests compare
 * both with the core functions.
 */
export function signsInto(vector: Float32Array, out: Uint32Array, offset: number, words: number): boolean {
  let zeros = 0;
  for (let w = 0; w < words; w++) {
    let bits = 0;
    const end = Math.min(vector.length, (w + 1) * 32);
    for (let i = w * 32, b = 0; i < end; i++, b++) {
      const x = vector[i]!;
      bits |= +(x > 0) << b;
      zeros += +(x === 0);
    }
    out[offset + w] = bits;
  }
  return zeros * 4 > vector.length;
}

/** The codes insert's argument arrays, reused (emptied after each statement). */
const codeArgArrays = new ChunkArgs();

/** Whether rows [offset, offset + size) all have the first one's tenant and namespace. */
export function oneScope(rows: readonly WrittenVector[], offset: number, size: number): boolean {
  const { tenant, namespace } = rows[offset]!;
  for (let i = offset + 1; i < offset + size; i++) {
    const row = rows[i]!;
    if (row.tenant !== tenant || row.namespace !== namespace) return false;
  }
  return true;
}

/**
 * The codes insert's arguments for rows [offset, offset + size): rowid, tenant, namespace, code, floats'
 * bytes; without tenant and namespace when `shared` (the statement binds them once: oneScope).
 */
export function codeArgs(
  rowids: readonly number[],
  rows: readonly WrittenVector[],
  codes: readonly Uint8Array[],
  offset: number,
  size: number,
  shared = false,
): unknown[] {
  const stride = shared ? 3 : 5;
  const args = codeArgArrays.of(size, stride);
  for (let i = 0, at = 0; i < size; i++, at += stride) {
    const row = rows[offset + i]!;
    args[at] = rowids[offset + i];
    if (!shared) {
      args[at + 1] = row.tenant;
      args[at + 2] = row.namespace;
    }
    args[at + stride - 2] = codes[offset + i];
    args[at + stride - 1] = row.floats; // a typed array binds as its bytes (no Buffer view a row)
  }
  return args;
}

/** Lets go of a batch's values held by a reused argument array. */
export function clearArgs(args: unknown[]): void {
  args.fill(undefined);
}

/**
 * The rows as the index takes them at commit (`pending`) and the rowids the write logs (`unlogged`);
 * how many of them are sparse.
 */
export function queueWritten(
  pending: WrittenCode[],
  unlogged: number[],
  rowids: readonly number[],
  rows: readonly WrittenVector[],
  codes: readonly Uint8Array[],
  sparse: readonly boolean[],
): number {
  let sparseCount = 0;
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    const rowid = rowids[i]!;
    const isSparseRow = sparse[i]!;
    if (isSparseRow) sparseCount++;
    // Constructed, not literals (WrittenRow: why).
    pending.push(new WrittenRow(rowid, new RowCode(row.tenant, row.namespace, row.floats, codes[i]!, isSparseRow)));
    unlogged.push(rowid);
  }
  return sparseCount;
}
