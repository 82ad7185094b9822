import { AgentMemoryError } from '@agentmem/core';
import { QdrantClientResourceExhaustedError, QdrantClientTimeoutError } from '@qdrant/js-client-rest';

export interface RetryPolicy {
  /** Attempts after the first; default 3. */
  retries: number;
  /** First backoff delay; doubles per attempt (with jitter). Default 200. */
  minDelayMs: number;
  /** Backoff cap. Default 5000. */
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { retries: 3, minDelayMs: 200, maxDelayMs: 5000 };

/** What went wrong with one request, read off whatever the client threw. */
interface Fault {
  status?: number;
  /** Qdrant's own reason (`status.error` of the response body). */
  reason?: string;
  timeout: boolean;
  network: boolean;
  retryAfterMs?: number;
}

function classify(error: unknown): Fault {
  if (error instanceof QdrantClientTimeoutError) return { timeout: true, network: false };
  if (error instanceof QdrantClientResourceExhaustedError) {
    return {
      status: 429,
      reason: error.message,
      timeout: false,
      network: false,
      retryAfterMs: error.retry_after * 1000,
    };
  }
  const e = error as { status?: unknown; data?: unknown; name?: string; cause?: unknown; message?: string };
  if (typeof e?.status === 'number') {
    const data = e.data as { status?: { error?: unknown } | string } | string | undefined;
    let reason: string | undefined;
    if (
      data &&
      typeof data === 'object' &&
      data.status &&
      typeof data.status === 'object' &&
      typeof data.status.error === 'string'
    ) {
      reason = data.status.error;
    } else if (typeof data === 'string' && data.trim() !== '') {
      reason = data.trim().slice(0, 500);
    }
    return { status: e.status, reason, timeout: false, network: false };
  }
  if (e?.name === 'AbortError' || e?.name === 'TimeoutError') return { timeout: true, network: false };
  // undici: TypeError('fetch failed') with a system error as cause (ECONNREFUSED, ECONNRESET, ...).
  if (e instanceof TypeError || (e?.cause && typeof (e.cause as { code?: unknown }).code === 'string')) {
    return { timeout: false, network: true };
  }
  return { timeout: false, network: false };
}

function retryable(f: Fault): boolean {
  return f.timeout || f.network || f.status === 429 || (f.status !== undefined && f.status >= 500);
}

/** Full-jitter exponential backoff, honouring Retry-After when the server sent one. */
function backoff(policy: RetryPolicy, attempt: number, fault: Fault): number {
  if (fault.retryAfterMs !== undefined) return Math.min(policy.maxDelayMs, fault.retryAfterMs);
  const ceiling = Math.min(policy.maxDelayMs, policy.minDelayMs * 2 ** attempt);
  return policy.minDelayMs / 2 + Math.random() * (ceiling - policy.minDelayMs / 2);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs one Qdrant request with retries on timeouts, network errors, 429 and
 * 5xx (never on other 4xx: the same request would fail the same way), and
 * turns the final failure into an AgentMemoryError carrying Qdrant's reason.
 */
export async function withRetry<T>(
  operation: string,
  policy: RetryPolicy,
  where: string,
  fn: () => Promise<T>,
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn();
    } catch (error) {
      if (AgentMemoryError.isInstance(error)) throw error;
      const fault = classify(error);
      if (attempt < policy.retries && retryable(fault)) {
        await sleep(backoff(policy, attempt, fault));
        continue;
      }
      throw toAgentMemoryError(operation, where, error, fault, attempt + 1);
    }
  }
}

function toAgentMemoryError(
  operation: string,
  where: string,
  error: unknown,
  f: Fault,
  attempts: number,
): AgentMemoryError {
  const details = { operation, status: f.status, reason: f.reason, attempts, where };
  const tried = attempts > 1 ? ` after ${attempts} attempts` : '';
  if (f.timeout) {
    return new AgentMemoryError(
      'TIMEOUT',
      `Qdrant ${operation} timed out${tried} (${where}). Raise timeoutMs or check the server's load.`,
      { cause: error, details },
    );
  }
  if (f.network) {
    return new AgentMemoryError(
      'BACKEND_UNAVAILABLE',
      `Cannot reach Qdrant at ${where} for ${operation}${tried}. Check that the server runs and the url is right.`,
      { cause: error, details },
    );
  }
  const reason = f.reason ?? (error instanceof Error ? error.message : String(error));
  if (f.status === 401 || f.status === 403) {
    return new AgentMemoryError(
      'AUTHENTICATION',
      `Qdrant refused ${operation}: ${reason} (HTTP ${f.status}). Check apiKey.`,
      {
        cause: error,
        details,
      },
    );
  }
  if (f.status === 429) {
    return new AgentMemoryError(
      'RATE_LIMITED',
      `Qdrant rate-limited ${operation}${tried}: ${reason}. Slow down or raise the limit.`,
      {
        cause: error,
        details,
      },
    );
  }
  const http = f.status !== undefined ? ` (HTTP ${f.status})` : '';
  return new AgentMemoryError('BACKEND_ERROR', `Qdrant ${operation} failed${tried}: ${reason}${http}.`, {
    cause: error,
    details,
  });
}
