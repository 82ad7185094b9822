import type { SearchHit } from '../contracts';
import { countTerms } from '../text';
import { inTimeSpans } from './query-time-spans';
import type { TimeSpan } from './time-span';

/** Keyword score factor for memories that occurred on a time the query names (x1.5). */
export const DATE_EVIDENCE_BOOST = 0.5;
/** Share of its session's best score a turn gains (session evidence). */
export const SESSION_EVIDENCE_WEIGHT = 0.2;
/** Exponent of the content-length prior: longer turns carry more facts. */
export const LENGTH_PRIOR = 0.2;
/** Score kept by a memory whose content is a question ("...?"): questions are rarely the answer. */
export const QUESTION_PENALTY = 0.2;

export interface KeywordEvidenceOptions {
  /** Time spans the query names (date evidence); empty for none. */
  spans: readonly TimeSpan[];
  /** Lift turns of sessions that match (memories with `metadata.sessionId`). */
  sessions: boolean;
  /** Length prior and question penalty on the content. */
  turnPriors: boolean;
}

/**
 * Query-side evidence on the keyword candidates (all measured on LoCoMo with
 * leave-one-conversation-out cross-validation, docs/benchmarks.md):
 * 1. date evidence: x(1 + 0.5) for memories whose `occurredAt` is in a span the query names;
 * 2. session evidence: scores scaled to the best hit, plus 0.2 x the best scaled score of the
 *    memory's session (`metadata.sessionId`; a memory without one is its own session);
 * 3. turn priors: x(content terms)^0.2, and x0.8 for content that is a question.
 * Returns the hits rescored, best first.
 */
export function applyKeywordEvidence(hits: readonly SearchHit[], options: KeywordEvidenceOptions): SearchHit[] {
  if (hits.length === 0) return [];
  let scores = hits.map((h) =>
    options.spans.length > 0 && inTimeSpans(Number(h.record.attributes.occurredAt ?? Number.NaN), options.spans)
      ? h.score * (1 + DATE_EVIDENCE_BOOST)
      : h.score,
  );
  if (options.sessions) {
    const max = Math.max(...scores);
    if (max > 0) {
      const base = scores.map((s) => s / max);
      const sessionOf = hits.map((h, i) => {
        const metadata = (h.record.payload as { metadata?: { sessionId?: unknown } }).metadata;
        return typeof metadata?.sessionId === 'string' ? `s\u0000${metadata.sessionId}` : `m\u0000${i}`;
      });
      const best = new Map<string, number>();
      base.forEach((b, i) => {
        best.set(sessionOf[i]!, Math.max(best.get(sessionOf[i]!) ?? 0, b));
      });
      scores = base.map((b, i) => (b > 0 ? b + SESSION_EVIDENCE_WEIGHT * best.get(sessionOf[i]!)! : b));
    }
  }
  if (options.turnPriors) {
    scores = scores.map((s, i) => {
      const text = hits[i]!.record.text;
      // Only the count of content terms matters: no word is stemmed (stemming cost ~0.4 ms a recall).
      const length = Math.max(1, countTerms(text));
      return s * length ** LENGTH_PRIOR * (/\?\s*$/.test(text) ? 1 - QUESTION_PENALTY : 1);
    });
  }
  return hits
    .map((h, i) => ({ ...h, score: scores[i]! }))
    .sort((a, b) => b.score - a.score || (a.record.id < b.record.id ? -1 : 1));
}
