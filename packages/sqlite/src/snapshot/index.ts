export { sqliteSnapshotFormat } from './sqlite-snapshot-format';
