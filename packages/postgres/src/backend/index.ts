export { classify, DEFAULT_RETRY, type FaultKind, type RetryPolicy } from './faults';
export {
  HNSW_MAX_DIMENSION,
  type KeywordRanking,
  PostgresBackend,
  type PostgresBackendOptions,
} from './postgres-backend';
