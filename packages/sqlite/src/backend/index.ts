export { SqliteBackend, type SqliteBackendOptions } from './sqlite-backend';
export { acquireGate, releaseGate, TransactionGate, type TransactionFrame } from './transaction-gate';
