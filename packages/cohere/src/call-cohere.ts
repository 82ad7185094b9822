import { AgentMemoryError, abortedError } from '@agentmem/core';
import { CohereError, CohereTimeoutError } from 'cohere-ai';
import { backoff } from './backoff';

export interface RetryPolicy {
  /** Further attempts after the first; default 3. */
  retries?: number;
  /** First backoff delay; doubles each attempt. Default 250 ms. */
  minDelayMs?: number;
  /** Longest wait, also the bound on a server's Retry-After. Default 10 s. */
  maxDelayMs?: number;
}

/** Cohere's API, where a client without `baseUrl` sends its requests. */
export const COHERE_API_URL = 'https://api.cohere.com';

/**
 * Runs one Cohere request with our retry policy (the client's own retries
 * are switched off so there is one bounded policy): 429 honours Retry-After
 * up to `maxDelayMs`, 5xx, timeouts and an unreachable service back off
 * exponentially, other 4xx fail at once. Every failure becomes an
 * AgentMemoryError that says what to do. `url` is the API base the client
 * talks to, named when it cannot be reached. `signal` is the caller's (also
 * given to the request): once it aborts, nothing is retried or waited for, and
 * the call fails with ABORTED.
 */
export async function callCohere<T>(
  what: string,
  request: () => Promise<T>,
  policy: RetryPolicy = {},
  url = COHERE_API_URL,
  signal?: AbortSignal,
): Promise<T> {
  const retries = policy.retries ?? 3;
  const minDelay = policy.minDelayMs ?? 250;
  const maxDelay = policy.maxDelayMs ?? 10_000;
  for (let attempt = 0; ; attempt++) {
    if (signal?.aborted) throw abortedError(`Cohere ${what}`, signal);
    try {
      return await request();
    } catch (error) {
      // The client reports an abort as a CohereError with no status: the signal says whose it was.
      if (signal?.aborted) throw abortedError(`Cohere ${what}`, signal, error);
      const mapped = toAgentMemoryError(what, error, { url, attempts: attempt + 1 });
      const status = statusOf(error);
      const retryable =
        mapped.code === 'TIMEOUT' ||
        mapped.code === 'RATE_LIMITED' ||
        (status !== undefined && status >= 500) ||
        unreachable(error) !== undefined;
      if (!retryable || attempt >= retries) throw mapped;
      let delay = Math.min(maxDelay, minDelay * 2 ** attempt);
      if (status === 429) {
        const retryAfter = retryAfterMs(error);
        if (retryAfter !== undefined) {
          if (retryAfter > maxDelay) throw mapped; // the server asks for longer than we may wait
          delay = retryAfter;
        }
      }
      await backoff(delay, signal);
    }
  }
}

function statusOf(error: unknown): number | undefined {
  return error instanceof CohereError ? error.statusCode : undefined;
}

function retryAfterMs(error: unknown): number | undefined {
  const header = error instanceof CohereError ? error.rawResponse?.headers?.get?.('retry-after') : undefined;
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** A cancelled request (cohere-ai says "The user aborted a request"), not one of its timeouts. */
function aborted(error: unknown): boolean {
  if (error instanceof Error && error.name === 'AbortError') return true;
  return (
    error instanceof CohereError &&
    error.statusCode === undefined &&
    !(error instanceof CohereTimeoutError) &&
    /\baborted\b/i.test(error.message) &&
    !/timeout|timed out/i.test(error.message)
  );
}

function reasonOf(error: CohereError): string {
  const body = error.body as { message?: unknown } | string | undefined;
  if (typeof body === 'string' && body) return body;
  if (body && typeof body === 'object' && typeof body.message === 'string') return body.message;
  return error.message;
}

/**
 * Why the service could not be reached (`ECONNREFUSED`, `ENOTFOUND`, `fetch failed`), or undefined: the
 * client reports a failed connection as a CohereError without a status (a timeout and the caller's abort
 * have their own).
 */
function unreachable(error: unknown): string | undefined {
  if (!(error instanceof CohereError) || error.statusCode !== undefined || error instanceof CohereTimeoutError)
    return undefined;
  if (/timeout|aborted/i.test(error.message)) return undefined;
  // fetch's TypeError("fetch failed") carries the system error (or several, one per address) as its cause.
  const cause = (error.cause as { cause?: { code?: unknown; errors?: { code?: unknown }[] } } | undefined)?.cause;
  const code = cause?.code ?? cause?.errors?.[0]?.code;
  return typeof code === 'string' ? code : error.message;
}

export function toAgentMemoryError(
  what: string,
  error: unknown,
  at: { url?: string; attempts?: number } = {},
): AgentMemoryError {
  if (AgentMemoryError.isInstance(error)) return error;
  // An abort through a signal callCohere was not given (a client's own): cancelled, not a rejected request.
  if (aborted(error)) return abortedError(`Cohere ${what}`, undefined, error);
  const offline = unreachable(error);
  if (offline !== undefined) {
    const url = at.url ?? COHERE_API_URL;
    const tried = (at.attempts ?? 1) > 1 ? ` after ${at.attempts} attempts` : '';
    return new AgentMemoryError(
      'BACKEND_UNAVAILABLE',
      `Cannot reach Cohere at ${url} for ${what}${tried} (${offline}). Check the network connection${url === COHERE_API_URL ? '' : ' and that the baseUrl is right'}, then try again.`,
      { cause: error, details: { url, reason: offline, attempts: at.attempts ?? 1 } },
    );
  }
  // Older cohere-ai releases report a timeout as a plain CohereError("timeout").
  if (
    error instanceof CohereTimeoutError ||
    (error instanceof CohereError && /timeout/i.test(error.message) && error.statusCode === undefined)
  ) {
    return new AgentMemoryError('TIMEOUT', `Cohere ${what} timed out. Raise timeoutMs or try again later.`, {
      cause: error,
    });
  }
  if (error instanceof CohereError) {
    const status = error.statusCode;
    const reason = reasonOf(error);
    const details = { status, reason };
    if (status === 401 || status === 403 || status === 498) {
      return new AgentMemoryError(
        'AUTHENTICATION',
        `Cohere refused the ${what} request (${status}: ${reason}). Check your Cohere API key (the apiKey option or CO_API_KEY).`,
        { cause: error, details },
      );
    }
    if (status === 429) {
      return new AgentMemoryError(
        'RATE_LIMITED',
        `Cohere rate limit hit on ${what} (${reason}). Slow down or raise your plan's limits.`,
        {
          cause: error,
          details,
        },
      );
    }
    if (status !== undefined && status >= 500) {
      return new AgentMemoryError(
        'BACKEND_UNAVAILABLE',
        `Cohere ${what} failed with ${status} (${reason}) after retries. Try again later.`,
        {
          cause: error,
          details,
        },
      );
    }
    return new AgentMemoryError(
      'INVALID_INPUT',
      `Cohere rejected the ${what} request (${status ?? 'no status'}: ${reason}).`,
      {
        cause: error,
        details,
      },
    );
  }
  return new AgentMemoryError(
    'BACKEND_UNAVAILABLE',
    `Cohere ${what} failed: ${(error as Error)?.message ?? String(error)}`,
    {
      cause: error,
    },
  );
}
