export type { KeywordRanking } from '../query';
export { classify, DEFAULT_RETRY, type FaultKind, type RetryPolicy } from './faults';
export { HNSW_MAX_DIMENSION, PostgresBackend, type PostgresBackendOptions } from './postgres-backend';
