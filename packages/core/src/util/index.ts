export { newId, stableId } from './ids';
export { toIso, toMillis } from './time';
