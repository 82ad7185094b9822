import type { AgentMemoryErrorCode } from './error-code';

// A registry symbol, so that `isInstance` works across duplicate copies of this package.
const marker = Symbol.for('agentmem.error');

/**
 * The one error class of agentmem. `code` is stable; the message says what
 * happened and what to do about it.
 */
export class AgentMemoryError extends Error {
  readonly code: AgentMemoryErrorCode;
  /** Structured context (paths, ids, expected vs actual). */
  readonly details: Readonly<Record<string, unknown>>;

  constructor(
    code: AgentMemoryErrorCode,
    message: string,
    options: { cause?: unknown; details?: Record<string, unknown> } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AgentMemoryError';
    Object.defineProperty(this, marker, { value: true });
    this.code = code;
    this.details = options.details ?? {};
  }

  static isInstance(error: unknown): error is AgentMemoryError {
    return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[marker] === true;
  }

  static hasCode(error: unknown, code: AgentMemoryErrorCode): error is AgentMemoryError {
    return AgentMemoryError.isInstance(error) && error.code === code;
  }
}

export function invalidInput(message: string, details?: Record<string, unknown>): AgentMemoryError {
  return new AgentMemoryError('INVALID_INPUT', message, { details });
}

/** `value` if it is one of `allowed`, else an INVALID_INPUT error that lists them. */
export function assertOneOf<T extends string>(value: unknown, allowed: readonly T[], what: string): T {
  if (!(allowed as readonly unknown[]).includes(value)) {
    throw invalidInput(`Unknown ${what} ${JSON.stringify(value)}: use one of ${allowed.join(', ')}.`, { value });
  }
  return value as T;
}
