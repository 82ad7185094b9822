export { type CompiledFilter, compileFilter, namespaceList } from './filter-sql';
export { SqlBuilder } from './sql-builder';
export { termsQuery, termsVector } from './terms';
