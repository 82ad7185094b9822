import { INDEXED_NAMES } from '../records';
import type { StoreContext } from '../store';

/** Columns of `records` a fold copies a pending log record into (the views have the same names). */
const LOG_COLUMNS = `id, namespace, tenant, text, context, attributes, payload${INDEXED_NAMES}`;

/**
 * Turns the pending logged changes of these ids (as a changed record's id or as a log record's)
 * into real rows, inside the caller's write: the log record inserted into records, the change
 * applied to its record's row (not to those in `deleting`, which the caller is about to delete).
 * Every write to a record or log record does this first, so it changes what reads showed.
 */
export function foldChanges(ctx: StoreContext, ids: readonly string[], deleting: readonly string[] = []): void {
  if (ids.length === 0 || !ctx.hasPending()) return;
  const json = JSON.stringify(ids);
  const pending = ctx
    .stmt(
      'SELECT c.log_rowid FROM json_each(?) AS i JOIN records r ON r.id = i.value JOIN logged_changes c ON c.log_rowid = -r.rowid ' +
        'UNION SELECT log_rowid FROM logged_changes WHERE log_id IN (SELECT value FROM json_each(?))',
    )
    .pluck()
    .all(json, json) as number[];
  if (pending.length === 0) return;
  const list = JSON.stringify(pending);
  ctx
    .stmt(
      `INSERT OR FAIL INTO records (${LOG_COLUMNS}) SELECT ${LOG_COLUMNS} FROM logged_records ` +
        'WHERE rowid IN (SELECT value FROM json_each(?)) ORDER BY changed',
    )
    .run(list);
  // The change rows go first: schema 8's triggers refuse to update or delete a record whose change is
  // pending (a process on an older version would not fold it).
  const changes = ctx
    .stmt(
      'DELETE FROM logged_changes WHERE log_rowid IN (SELECT value FROM json_each(?)) RETURNING log_rowid, batch, payload',
    )
    .raw()
    .all(list) as [number, number, string][];
  ctx
    .stmt(
      'UPDATE records SET attributes = jsonb_patch(records.attributes, b.attributes), ' +
        'payload = json_patch(records.payload, c.value ->> 2), attr_status = iif(b.sets_status, b.status, records.attr_status) ' +
        'FROM json_each(?) AS c JOIN logged_batches b ON b.rowid = c.value ->> 1 ' +
        'WHERE records.rowid = -(c.value ->> 0) AND records.id NOT IN (SELECT value FROM json_each(?))',
    )
    .run(JSON.stringify(changes), JSON.stringify(deleting));
  ctx
    .stmt(
      'DELETE FROM logged_batches WHERE NOT EXISTS (SELECT 1 FROM logged_changes c WHERE c.batch = logged_batches.rowid)',
    )
    .run();
}
