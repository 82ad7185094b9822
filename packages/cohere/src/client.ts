import { CohereClientV2 } from 'cohere-ai';

export interface CohereClientOptions {
  /** Default: the CO_API_KEY environment variable. */
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
