export { abortedError } from './aborted';
export { AgentMemoryError, assertOneOf, invalidInput } from './agent-memory-error';
export type { AgentMemoryErrorCode } from './error-code';
