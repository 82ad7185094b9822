/** What a call cost, where the provider reports it. */
export interface Usage {
  tokens?: number;
  calls?: number;
}
