import { approximateCandidates, type RecordFilter, type SearchHit } from '@agentmem/core';
import { compileFilter, namespaceList, SqlBuilder } from '../query';
import { type ReadSource, type RecordRow, vectorBlob } from '../records';
import { CODES_TABLE, useVectorExtension } from '../schema';
import type { StoreContext } from '../store';
import { type HitColumns, hitColumns } from './hit-columns';

/** Rows read beyond k (at least; k / 4 for larger k) from the head of the int8 ranking for exact rescoring. */
const RESCORE_MARGIN = 8;
/** The largest candidate pool; beyond it filtered dense search scans the matching records, joined, exactly. */
const MAX_KNN = 4096;

/**
 * Candidates by Hamming distance of sign-bit codes (in process), ranked by
 * the cosine of their int8 copies (in process), then the head of that
 * ranking read by rowid with the filter and ranked by exact cosine of the
 * float vectors; undefined when the binary index cannot serve or the filter
 * leaves too few candidates, and the exact search runs instead.
 */
export function approximateDenseSearch(
  ctx: StoreContext,
  vector: Float32Array,
  filter: RecordFilter,
  k: number,
  columns: HitColumns = hitColumns(undefined),
): SearchHit[] | undefined {
  const namespaces = filter.namespaces ? namespaceList(filter.namespaces) : undefined;
  if (namespaces?.length === 0) return [];
  const index = ctx.denseIndex();
  if (!index) return undefined;
  const b = new SqlBuilder();
  const where = compileFilter(filter, b);
  if (!where.satisfiable) return [];
  const scope = { tenant: filter.tenant, namespaces };
  const total = index.size(scope);
  // Sparse vectors (lexical embedder): exact search, over the candidates of the sparse index.
  if (total === undefined) {
    index.sparseSlice();
    return knnDenseSearch(ctx, vector, filter, k, (m) => index.sparseCandidates(vector, scope, m), columns);
  }
  // The int8 ranking is near-exact (on the bench corpus 4 rows beyond k already give the exact top k):
  // only its first passing rows are read (whole, or as a partial search asks), with their floats.
  const head = k + Math.max(RESCORE_MARGIN, Math.ceil(k / 4));
  const rows = approximateCandidates(k, total, (m) => {
    const ranked = index.candidates(vector, scope, m);
    const passing: { row: RecordRow; vector: Float32Array }[] = [];
    let examined = 0;
    while (examined < ranked.length && passing.length < head) {
      // Read about as many as still needed, more when the filter has been turning rows away.
      const share = examined === 0 ? 1 : Math.max(passing.length / examined, 1 / 64);
      const size = Math.ceil((head - passing.length) / share);
      const chunk = ranked.slice(examined, examined + size);
      passing.push(
        ...ctx.snapshot(() =>
          index.rows<RecordRow>(chunk, columns.sql, { sql: where.sql, params: b.params }, ctx.source(false)),
        ),
      );
      examined += chunk.length;
    }
    return { taken: ranked.length, examined, passing };
  });
  if (!rows) return undefined;
  const scores = index.cosines(
    vector,
    rows.map((r) => r.vector),
  );
  return rows
    .map((r, i) => ({ row: r.row, score: scores[i]! }))
    .sort((x, y) => y.score - x.score || (x.row.id < y.row.id ? -1 : 1))
    .slice(0, k)
    .map((t) => ({ record: columns.decode(t.row), score: t.score }));
}

/**
 * Exact KNN: a scan of the one copy of the vectors (the codes table, schema 13)
 * scored by sqlite-vec's `vec_distance_cosine` (the cosine vec0 computed) with a
 * bounded sort, limited to the (tenant, namespace) scopes the filter names (by
 * the table's scope index when it names a tenant); attribute conditions are
 * applied by joining the candidates with `records`, and the candidate pool
 * grows until k match or none are left. `candidates(m)`, when it gives rowids, replaces the scan
 * with a look-up of those rows: a superset of the scope's m nearest (the sparse index) among the
 * rowids up to `after` (a build not finished: the rows above it are scanned), so the results are the scan's.
 */
export function knnDenseSearch(
  ctx: StoreContext,
  vector: Float32Array,
  filter: RecordFilter,
  k: number,
  candidates?: (m: number) => { keys: number[]; after: number } | undefined,
  columns: HitColumns = hitColumns(undefined),
): SearchHit[] {
  useVectorExtension(ctx.db); // its statements (and exactDenseSearch's) call vec_distance_cosine
  const query = vectorBlob(vector);
  const scope = new SqlBuilder();
  const parts: string[] = [];
  if (filter.tenant !== null) parts.push(`tenant = ${scope.param(filter.tenant)}`);
  if (filter.namespaces) {
    const ns = namespaceList(filter.namespaces);
    if (ns.length === 0) return [];
    parts.push(
      ns.length === 1
        ? `namespace = ${scope.param(ns[0])}`
        : `namespace IN (SELECT value FROM json_each(${scope.param(JSON.stringify(ns))}))`,
    );
  }
  const hasWhere = Object.values(filter.where ?? {}).some((c) => c !== undefined);
  const knnSql = (among: boolean, after: boolean) => {
    // Among given rowids: each looked up by rowid (`+` keeps SQLite from walking the scope index instead).
    const rowids = `rowid IN (SELECT value FROM json_each(@among))${after ? ' OR rowid > @after' : ''}`;
    const where = among ? [`(${rowids})`, ...parts.map((p) => `+${p}`)] : parts;
    return (
      `SELECT rowid, vec_distance_cosine(embedding, @query) AS distance FROM ${CODES_TABLE}` +
      (where.length > 0 ? ` WHERE ${where.join(' AND ')}` : '') +
      ' ORDER BY distance, rowid LIMIT @k'
    );
  };
  const fetch = new SqlBuilder();
  const where = compileFilter(filter, fetch);
  const passingSql = (from: ReadSource) =>
    `SELECT r.rowid AS rowid, r.id AS id FROM ${from} r WHERE r.rowid IN (SELECT value FROM json_each(@rowids)) AND ${where.sql}`;
  const readSql = (from: ReadSource) =>
    `SELECT ${columns.sql} FROM ${from} r WHERE r.rowid IN (SELECT value FROM json_each(@rowids))`;
  // Every round is a scan of the scopes' vectors, whatever the pool: start well above k so that a
  // filter turning some candidates away (core's: active memories) rarely costs a second scan. The
  // pool's rowids are filtered; only the k rows returned are read whole.
  let pool = Math.min(MAX_KNN, hasWhere ? k + Math.max(64, k) : k);
  for (;;) {
    const among = candidates?.(pool);
    const after = among !== undefined && among.after !== Number.POSITIVE_INFINITY;
    const found = ctx.stmt(knnSql(among !== undefined, after)).all({
      ...scope.params,
      query,
      k: pool,
      ...(among ? { among: JSON.stringify(among.keys) } : {}),
      ...(after ? { after: among.after } : {}),
    }) as {
      rowid: number;
      distance: number;
    }[];
    const distance = new Map(found.map((c) => [c.rowid, c.distance]));
    const exhausted = found.length < pool;
    const { passed, rows } = ctx.snapshot(() => {
      const passing = ctx.stmt(passingSql(ctx.source(false))).all({
        ...fetch.params,
        rowids: JSON.stringify(found.map((c) => c.rowid)),
      }) as { rowid: number; id: string }[];
      if (passing.length < k && !exhausted) return { passed: passing.length, rows: undefined };
      const top = passing
        .map((p) => ({ rowid: p.rowid, id: p.id, d: distance.get(p.rowid)! }))
        .sort((x, y) => x.d - y.d || (x.id < y.id ? -1 : 1))
        .slice(0, k);
      const read = ctx.stmt(readSql(ctx.source(false))).all({
        rowids: JSON.stringify(top.map((t) => t.rowid)),
      }) as RecordRow[];
      return { passed: passing.length, rows: read };
    });
    if (rows) {
      return rows
        .map((row) => ({ row, d: distance.get(row.rowid)! }))
        .sort((x, y) => x.d - y.d || (x.row.id < y.row.id ? -1 : 1))
        .map(({ row, d }) => ({ record: columns.decode(row), score: 1 - d }));
    }
    if (pool >= MAX_KNN) return exactDenseSearch(ctx, query, filter, k, columns);
    // Grow by the observed share of matching candidates, at least doubling.
    const share = Math.max(passed / found.length, 1 / 256);
    pool = Math.min(MAX_KNN, Math.max(pool * 2, Math.ceil((k / share) * 1.25) + 16));
  }
}

/** Exact search over the records that match the filter, for filters too selective for KNN pools. */
function exactDenseSearch(
  ctx: StoreContext,
  query: Buffer,
  filter: RecordFilter,
  k: number,
  columns: HitColumns,
): SearchHit[] {
  const b = new SqlBuilder();
  const where = compileFilter(filter, b);
  const sql = (from: ReadSource) =>
    `SELECT ${columns.sql}, vec_distance_cosine(v.embedding, ${b.param(query)}) AS distance ` +
    `FROM ${from} r JOIN ${CODES_TABLE} v ON v.rowid = r.rowid WHERE ${where.sql} ORDER BY distance, r.id LIMIT ${b.param(k)}`;
  const rows = ctx.snapshot(
    () => ctx.stmt(sql(ctx.source(false))).all(b.params) as (RecordRow & { distance: number })[],
  );
  return rows.map((row) => ({
    record: columns.decode(row),
    score: 1 - row.distance,
  }));
}
