import { AgentMemoryError } from './agent-memory-error';

/**
 * The error of an operation the caller cancelled through its AbortSignal: code ABORTED, never retried.
 * `what` names the operation ("Cohere embed"); `cause` is what the cancelled call threw, if anything.
 */
export function abortedError(what: string, signal?: AbortSignal, cause?: unknown): AgentMemoryError {
  const reason = signal?.reason;
  // The default reason (a DOMException "This operation was aborted") says nothing the message does not.
  const given =
    reason === undefined || (reason instanceof Error && reason.name === 'AbortError')
      ? undefined
      : reason instanceof Error
        ? reason.message
        : String(reason);
  return new AgentMemoryError('ABORTED', `${what} was cancelled by the caller's signal${given ? ` (${given})` : ''}.`, {
    cause: cause ?? reason,
    ...(given ? { details: { reason: given } } : {}),
  });
}
