import { AgentMemoryError } from '@agentmem/core';

export interface RetryPolicy {
  /** Attempts after the first; default 3. */
  retries: number;
  /** First backoff delay; doubles per attempt (with jitter). Default 100. */
  minDelayMs: number;
  /** Backoff cap. Default 2000. */
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { retries: 3, minDelayMs: 100, maxDelayMs: 2000 };

export type FaultKind =
  /** No connection was made: nothing was sent, always safe to retry. */
  | 'unreachable'
  /** The connection broke after the request was sent: the server rolled back any open transaction. */
  | 'dropped'
  /** The server gave up (statement_timeout) or the client did (query read timeout). */
  | 'timeout'
  /** Serialization failure or deadlock: the transaction was rolled back and can run again. */
  | 'transient'
  | 'authentication'
  | 'other';

const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);
const DROPPED_CODES = new Set(['ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ECONNABORTED']);

/** What went wrong, read off whatever node-postgres threw. */
export function classify(error: unknown): FaultKind {
  const e = error as { code?: unknown; message?: unknown; errors?: unknown } | undefined;
  const code = typeof e?.code === 'string' ? e.code : '';
  const message = typeof e?.message === 'string' ? e.message : '';
  if (UNREACHABLE_CODES.has(code)) return 'unreachable';
  // 57P03 cannot_connect_now (starting up), 53300 too_many_connections: refused before any work.
  if (code === '57P03' || code === '53300') return 'unreachable';
  if (/timeout exceeded when trying to connect|due to connection timeout/i.test(message)) return 'unreachable';
  if (code === '57014' || message === 'Query read timeout') return 'timeout';
  if (code === '40001' || code === '40P01') return 'transient';
  if (code.startsWith('28')) return 'authentication';
  // 57P01 admin_shutdown, 57P02 crash_shutdown, 08xxx connection exceptions.
  if (code === '57P01' || code === '57P02' || code.startsWith('08') || DROPPED_CODES.has(code)) return 'dropped';
  if (/Connection terminated|not queryable|Client was closed|Connection ended/i.test(message)) return 'dropped';
  return 'other';
}

/** Whether the connection that saw this error can still be used (else it is destroyed, not pooled). */
export function connectionBroken(kind: FaultKind): boolean {
  return kind === 'dropped' || kind === 'timeout' || kind === 'unreachable';
}

export function backoffMs(policy: RetryPolicy, attempt: number): number {
  const exp = Math.min(policy.maxDelayMs, policy.minDelayMs * 2 ** attempt);
  return exp / 2 + Math.random() * (exp / 2);
}

/**
 * The error a caller sees: a stable code, and a message that says what
 * happened to the data and what to do.
 */
export function toAgentMemoryError(
  error: unknown,
  kind: FaultKind,
  where: string,
  context: { inTransaction: boolean; attempts: number },
): unknown {
  if (AgentMemoryError.isInstance(error)) return error;
  const reason = (error as Error)?.message ?? String(error);
  const tries = context.attempts > 1 ? ` after ${context.attempts} attempts` : '';
  const details = { target: where, attempts: context.attempts, sqlstate: (error as { code?: unknown })?.code };
  const rolledBack = context.inTransaction
    ? ' The transaction was rolled back: nothing of it was written.'
    : ' Nothing was half-written (each write is one transaction).';
  switch (kind) {
    case 'unreachable':
      return new AgentMemoryError(
        'BACKEND_UNAVAILABLE',
        `Cannot reach PostgreSQL at ${where}${tries} (${reason}). Check that the server runs and the connection string (--db, AGENTMEM_DB or DATABASE_URL) is right.`,
        { cause: error, details },
      );
    case 'dropped':
      return new AgentMemoryError(
        'BACKEND_UNAVAILABLE',
        `The connection to PostgreSQL at ${where} was lost${tries} (${reason}).${rolledBack} Retry once the server is back.`,
        { cause: error, details },
      );
    case 'timeout':
      return new AgentMemoryError(
        'TIMEOUT',
        `PostgreSQL at ${where} did not answer within the statement timeout (${reason}).${rolledBack} Retry, or raise statementTimeoutMs.`,
        { cause: error, details },
      );
    case 'authentication':
      return new AgentMemoryError(
        'AUTHENTICATION',
        `PostgreSQL at ${where} refused the login (${reason}). Check the user and password in the connection string.`,
        { cause: error, details },
      );
    case 'transient':
      return new AgentMemoryError(
        'CONFLICT',
        `PostgreSQL at ${where} aborted a transaction that collided with another one${tries} (${reason}).${rolledBack} Retry the operation.`,
        { cause: error, details },
      );
    default: {
      const code = (error as { code?: unknown })?.code;
      if (code === '22021' || code === '22P05') {
        return new AgentMemoryError(
          'INVALID_INPUT',
          `PostgreSQL cannot store this text (${reason}): remove NUL characters.${rolledBack}`,
          { cause: error, details },
        );
      }
      return new AgentMemoryError('BACKEND_ERROR', `PostgreSQL error at ${where}: ${reason}`, {
        cause: error,
        details,
      });
    }
  }
}
