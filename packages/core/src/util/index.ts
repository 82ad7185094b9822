export { newId, stableId } from './ids';
export { toIso, toMillis } from './time';
export { importOptional } from './import-optional';
export { isPostgresUrl, POSTGRES_PACKAGE_MISSING, redactPassword } from './connection-string';
