export { SqliteBackend, type SqliteBackendOptions } from './sqlite-backend';
export { acquireGate, releaseGate, type TransactionFrame, TransactionGate } from './transaction-gate';
