import type { RecordFilter, SearchHit } from '@agentmem/core';
import { compileFilter, SqlBuilder } from '../query';
import { COLUMNS, decodeRow, type RecordRow } from '../records';
import type { StoreContext } from '../store';

/**
 * BM25F over the in-process keyword index (core's ranking, the same scores
 * as the in-memory backend): it counts the filter's corpus statistics and
 * scores the query terms' postings in typed arrays, then the k best rows are
 * read by id. A filter on attributes the index does not hold gets the ids
 * that pass it from SQL first.
 */
export function keywordSearch(ctx: StoreContext, text: string, filter: RecordFilter, k: number): SearchHit[] {
  let admit: ((id: string) => boolean) | undefined;
  if (!ctx.keywords.holds(filter)) {
    const b = new SqlBuilder();
    const where = compileFilter(filter, b);
    const ids = new Set(
      ctx.snapshot(
        () =>
          ctx
            .stmt(`SELECT r.id FROM ${ctx.source(false)} r WHERE ${where.sql}`)
            .pluck()
            .all(b.params) as string[],
      ),
    );
    admit = (id) => ids.has(id);
  }
  const matches = ctx.keywords.search(text, filter, k, admit);
  if (matches.length === 0) return [];
  const rows = rowsById(
    ctx,
    matches.map((m) => m.id),
  );
  // A match whose row is gone (another process deleted it between the index search and this read)
  // is not a result: the index learns of the delete on its next load.
  return matches.flatMap((m) => {
    const row = rows.get(m.id);
    return row ? [{ record: decodeRow(row), score: m.score }] : [];
  });
}

/** The rows with these ids (each once in the list), by id. */
function rowsById(ctx: StoreContext, ids: readonly string[]): Map<string, RecordRow> {
  const rows = ctx.snapshot(() => {
    const source = ctx.source(false);
    // From the table, each id probed straight from the list, as `get` reads (CROSS JOIN keeps
    // json_each outside): `id IN (SELECT ...)` first builds and sorts a temporary index of the list.
    const sql =
      source === 'records'
        ? `SELECT ${COLUMNS} FROM json_each(?) AS j CROSS JOIN records r ON r.id = j.value`
        : `SELECT ${COLUMNS} FROM ${source} r WHERE r.id IN (SELECT value FROM json_each(?))`;
    return ctx.stmt(sql).all(JSON.stringify(ids)) as RecordRow[];
  });
  return new Map(rows.map((row) => [row.id, row]));
}
