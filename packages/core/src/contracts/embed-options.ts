/** Stored texts are embedded as `document`, recall queries as `query` (some models differ). */
export interface EmbedOptions {
  purpose: 'document' | 'query';
  abortSignal?: AbortSignal;
}
