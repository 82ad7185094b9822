import type { BackendRecord } from './backend-record';

/** Where a record stood in one signal's ranking (rank is 1-based). */
export interface SignalMatch {
  rank: number;
  /** Raw score of that signal: cosine similarity for dense, BM25 for keyword. */
  score: number;
}

export interface SearchHit {
  record: BackendRecord;
  /** Higher is better. Dense: cosine similarity; keyword: BM25; hybrid: fused. */
  score: number;
  dense?: SignalMatch;
  keyword?: SignalMatch;
}
