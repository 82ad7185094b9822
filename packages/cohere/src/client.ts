import { AgentMemoryError } from '@agentmem/core';
import { CohereClientV2 } from 'cohere-ai';

export interface CohereClientOptions {
  /**
   * Default: the CO_API_KEY environment variable. Without either, a request fails before it is sent;
   * `''` sends none (a proxy that authenticates itself).
   */
  apiKey?: string;
  /** Another API base URL (a proxy, a private deployment, a test server). */
  baseUrl?: string;
  /** Per-request timeout; default 30 s. */
  timeoutMs?: number;
  /** Use this client instead of creating one. */
  client?: CohereClientV2;
}

export function cohereClient(options: CohereClientOptions): CohereClientV2 {
  if (options.client) return options.client;
  return new CohereClientV2({
    token: options.apiKey ?? process.env.CO_API_KEY ?? '',
    ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
    timeoutInSeconds: (options.timeoutMs ?? 30_000) / 1000,
    maxRetries: 0, // one retry policy: ours (callCohere)
  });
}

/** False when no key was given (option or CO_API_KEY) and the caller's own client is not used. */
export function hasApiKey(options: CohereClientOptions): boolean {
  return options.client !== undefined || options.apiKey !== undefined || Boolean(process.env.CO_API_KEY);
}

/** A missing key, said before the first request (which would only come back as a 401). */
export function noApiKey(): AgentMemoryError {
  return new AgentMemoryError(
    'AUTHENTICATION',
    'No Cohere API key: set the CO_API_KEY environment variable (export CO_API_KEY=<your key>; keys are at dashboard.cohere.com/api-keys) or pass { apiKey }. Nothing was sent to Cohere.',
  );
}
