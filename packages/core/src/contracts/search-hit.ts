import type { BackendRecord } from './backend-record';

/** Where a record stood in one signal's ranking (rank is 1-based). */
export interface SignalMatch {
  rank: number;
  /** Raw score of that signal: cosine similarity for dense, BM25 for keyword. */
  score: number;
}

/** How entity evidence reached a memory in recall (set by core, never by a backend). */
export interface EntitySignal {
  /** Entities the query names that the memory is linked to. */
  keys: string[];
  /** Set when a second hop reached the memory: the candidate it shares an entity with, and that entity's key. */
  via?: { id: string; key: string };
}

export interface SearchHit {
  record: BackendRecord;
  /** Higher is better. Dense: cosine similarity; keyword: BM25; hybrid: fused. */
  score: number;
  dense?: SignalMatch;
  keyword?: SignalMatch;
  entity?: EntitySignal;
}
