export { newId, stableId } from './ids';
export { toIso, toMillis } from './time';
export { importOptional } from './import-optional';
