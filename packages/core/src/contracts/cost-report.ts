/** What a long operation cost. */
export interface CostReport {
  durationMs: number;
  embeddingCalls: number;
  embeddingTokens?: number;
}
