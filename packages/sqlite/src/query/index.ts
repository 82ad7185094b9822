export { type CompiledFilter, compileFilter, namespaceList, SqlBuilder, type SqlParams } from './filter-sql';
export { keywordMatchExpression } from './keyword-query';
