import type Database from 'better-sqlite3';
import { SPARSE_FORMAT, SparseIndex } from './sparse-index';

/**
 * Whether a connection that wrote `written` sparse vectors and loaded no index should, at close,
 * catch the file's sparse index up, or build it (a slice: sparse-build.ts), and save it, so that no
 * search of a later process pays for it: when the file has no finished sparse save (a new store, a
 * store of an older release, a build not finished), or when it wrote many (`saveAfter`: the next
 * search would re-read them all). A file with a saved binary index (dense vectors) is not this one's.
 */
export function sparseSaveAtClose(db: Database.Database, written: number, saveAfter: number): boolean {
  if (written === 0) return false;
  const header = db.prepare('SELECT data FROM dense_snapshot WHERE id = 1').pluck().get() as
    | Buffer
    | string
    | undefined;
  const format = header ? SparseIndex.headerFormat(header) : undefined;
  if (header && !format?.startsWith('agentmem-sparse-')) return false; // a binary index's save
  return format !== SPARSE_FORMAT || written >= saveAfter;
}
