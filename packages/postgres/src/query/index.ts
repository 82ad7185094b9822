export { type CompiledFilter, compileFilter, namespaceList } from './filter-sql';
export { type KeywordRanking, keywordStatement, RECORD_COLUMNS } from './keyword-sql';
export { MAX_OCCURRED_AT_MS, MIN_OCCURRED_AT_MS, occurredAtBound, occurredAtColumn } from './occurred-at';
export { SqlBuilder } from './sql-builder';
export { termsQuery, termsVector } from './terms';
