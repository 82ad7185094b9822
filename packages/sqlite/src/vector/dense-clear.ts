import type Database from 'better-sqlite3';
import { beginImmediateNow, CODES_TABLE } from '../schema';

/**
 * The save of a dense index of nothing: no parts are written. When every vector is gone (every memory
 * deleted), the log of their changes and the save it was kept against go instead, so that a later
 * load reads the empty table and catches up on nothing. Read first: with nothing left to clear (an
 * empty store's every load) no write lock is taken. Checked again under the lock (another process may
 * have written a vector since); skipped, as a save, when another process holds it. True when cleared.
 */
export function clearEmptyDense(db: Database.Database): boolean {
  const left = db.prepare('SELECT EXISTS (SELECT 1 FROM dense_changes) OR EXISTS (SELECT 1 FROM dense_snapshot)');
  if (!left.pluck().get()) return false;
  if (!beginImmediateNow(db)) return false;
  try {
    const empty = !db.prepare(`SELECT EXISTS (SELECT 1 FROM ${CODES_TABLE})`).pluck().get();
    if (empty) {
      db.prepare('DELETE FROM dense_parts').run();
      db.prepare('DELETE FROM dense_snapshot').run();
      db.prepare('DELETE FROM dense_changes').run();
    }
    db.prepare('COMMIT').run();
    return empty;
  } catch (error) {
    if (db.inTransaction) db.prepare('ROLLBACK').run();
    throw error;
  }
}
