import { BM25_B, BM25_B_CONTEXT, BM25_K1, CONTEXT_WEIGHT, type RecordFilter } from '@agentmem/core';
import { compileFilter } from './filter-sql';
import { SqlBuilder } from './sql-builder';
import { termsQuery } from './terms';

export type KeywordRanking = 'bm25' | 'ts_rank_cd';

/** The record columns a search returns, over the records table aliased `r`. */
export const RECORD_COLUMNS = 'r.id, r.tenant, r.namespace, r.text, r.context, r.attributes, r.payload';

/**
 * The statement of a keyword search: the k best records for `text` among
 * those the filter admits, with their score (RECORD_COLUMNS, score), or
 * undefined when nothing can match (no term left, or an empty namespace list).
 *
 * BM25 is core's BM25F (k1, b, context b and weight from core): document
 * count and average field lengths over the filtered records, document
 * frequencies over the matching ones, term frequencies from the tsvector
 * positions (weight C = context). Every step is MATERIALIZED, so it runs once
 * whatever the planner estimates: inlined, the statistics aggregate became the
 * inner side of a nested loop and ran once per matching record (minutes for a
 * one-word query at 10k records). The cost is one pass over the filtered
 * records (statistics) and one over the matching ones; only the top k are
 * joined back to their rows.
 */
export function keywordStatement(
  table: string,
  text: string,
  filter: RecordFilter,
  k: number,
  ranking: KeywordRanking = 'bm25',
): { text: string; values: unknown[] } | undefined {
  const query = termsQuery(text);
  const b = new SqlBuilder();
  const where = compileFilter(filter, b);
  if (query === undefined || !where.satisfiable) return undefined;
  const tsquery = b.param(query.literal);
  const limit = b.param(k);
  if (ranking === 'ts_rank_cd') {
    // Weights {D, C, B, A}: content (A, or D when written before schema 2) 1, context (C) CONTEXT_WEIGHT.
    return {
      text: `SELECT ${RECORD_COLUMNS}, ts_rank_cd('{1, ${CONTEXT_WEIGHT}, 1, 1}'::float4[], r.terms, ${tsquery}::tsquery, 1) AS score
        FROM ${table} r WHERE r.terms @@ ${tsquery}::tsquery AND ${where.sql} ORDER BY score DESC, r.id LIMIT ${limit}`,
      values: b.params,
    };
  }
  const terms = b.param(query.terms);
  // Each field's occurrences normalised by its own length, the context's weighted, one saturation.
  const f = `tf.ft / (1 - ${BM25_B} + ${BM25_B} * tf.term_count / s.avgdl)
    + ${CONTEXT_WEIGHT} * tf.fc / (1 - ${BM25_B_CONTEXT} + ${BM25_B_CONTEXT} * tf.context_term_count / s.avgcl)`;
  return {
    text: `WITH stats AS MATERIALIZED (
        SELECT count(*)::float8 AS n, coalesce(nullif(avg(r.term_count), 0), 1)::float8 AS avgdl,
          coalesce(nullif(avg(r.context_term_count), 0), 1)::float8 AS avgcl
        FROM ${table} r WHERE (r.term_count > 0 OR r.context_term_count > 0) AND ${where.sql}
      ), tf AS MATERIALIZED (
        SELECT r.id, r.term_count, r.context_term_count, u.lexeme,
          cardinality(array_positions(u.weights, 'C'))::float8 AS fc,
          (cardinality(u.weights) - cardinality(array_positions(u.weights, 'C')))::float8 AS ft
        FROM ${table} r CROSS JOIN LATERAL unnest(r.terms) AS u(lexeme, positions, weights)
        WHERE r.terms @@ ${tsquery}::tsquery AND ${where.sql} AND u.lexeme = ANY(${terms}::text[])
      ), idf AS MATERIALIZED (
        SELECT tf.lexeme, ln(1 + (s.n - count(*) + 0.5) / (count(*) + 0.5)) AS idf
        FROM tf CROSS JOIN stats s GROUP BY tf.lexeme, s.n
      ), top AS MATERIALIZED (
        SELECT w.id, sum(w.idf * w.f * ${BM25_K1 + 1} / (w.f + ${BM25_K1})) AS score
        FROM (SELECT tf.id, i.idf, ${f} AS f FROM tf JOIN idf i USING (lexeme) CROSS JOIN stats s) w
        GROUP BY w.id ORDER BY score DESC, w.id LIMIT ${limit}
      )
      SELECT ${RECORD_COLUMNS}, t.score FROM top t JOIN ${table} r ON r.id = t.id ORDER BY t.score DESC, r.id`,
    values: b.params,
  };
}
