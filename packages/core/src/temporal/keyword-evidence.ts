import type { SearchHit } from '../contracts';
import { endsInQuestion } from '../recall-evidence/conversation-turn';
import { countTerms } from '../text';
import { inTimeSpans } from './query-time-spans';
import { statesDuration, type TimeAnswer } from './time-answer';
import type { TimeSpan } from './time-span';

/** Keyword score factor for memories that occurred on a time the query names (x1.5). */
export const DATE_EVIDENCE_BOOST = 0.5;
/**
 * Keyword score factor for memories that say when, for a question that asks when (x1.5): a memory
 * that mentions a date or states a duration answers "When did ...?" and "How long ...?" more often
 * than one that matches the same words without a time ("When did Nate get his turtles?" is answered
 * by "I've had them for 3 years now": a duration dates the start; LoCoMo dev R@5 73.6 -> 73.7). Chosen on LoCoMo conversations 1-2 (0, 0.1,
 * 0.2, 0.3, 0.5, 1: best R@10 at 0.5), checked on conversations 3-5 (docs/entities.md).
 */
export const TIME_ANSWER_BOOST = 0.5;
/** Share of its session's best score a turn gains (session evidence). */
export const SESSION_EVIDENCE_WEIGHT = 0.2;
/** Exponent of the content-length prior: longer turns carry more facts. */
export const LENGTH_PRIOR = 0.2;
/**
 * Score lost by a memory whose content ends by asking (`endsInQuestion`: "...?", also before a chat's
 * "[shares a photo: ...]" or emoji): questions are rarely the answer.
 */
export const QUESTION_PENALTY = 0.2;

export interface KeywordEvidenceOptions {
  /** Time spans the query names (date evidence); empty for none. */
  spans: readonly TimeSpan[];
  /** Lift turns of sessions that match (memories with `metadata.sessionId`). */
  sessions: boolean;
  /** Length prior and question penalty on the content. */
  turnPriors: boolean;
  /** The kind of time the query asks for (`timeAnswerIn`): memories that mention one gain TIME_ANSWER_BOOST. */
  timeAnswer?: TimeAnswer;
}

/** The spans of the dates a memory mentions (`Memory.entities` of kind `date`), from its stored payload. */
function mentionedDates(hit: SearchHit): { start: number; end: number }[] {
  const entities = (hit.record.payload as { entities?: unknown }).entities;
  if (!Array.isArray(entities)) return [];
  const out: { start: number; end: number }[] = [];
  for (const e of entities as { kind?: unknown; start?: unknown; end?: unknown }[]) {
    if (e?.kind === 'date' && typeof e.start === 'string' && typeof e.end === 'string') {
      out.push({ start: Date.parse(e.start), end: Date.parse(e.end) });
    }
  }
  return out;
}

/** Whether a mentioned span and a span the query names overlap (a month of any year: the mention's month). */
function overlaps(mention: { start: number; end: number }, spans: readonly TimeSpan[]): boolean {
  return spans.some((s) =>
    s.kind === 'range'
      ? mention.start < s.end && mention.end > s.start
      : inTimeSpans(mention.start, [s]) || inTimeSpans(mention.end - 1, [s]),
  );
}

/**
 * Query-side evidence on the keyword candidates (all measured on LoCoMo with
 * leave-one-conversation-out cross-validation, docs/benchmarks.md):
 * 1. date evidence: x(1 + 0.5) for memories whose `occurredAt` is in a span the query names, or
 *    that mention a date in one ("yesterday" said the day after); x(1 + 0.5) for memories that
 *    mention a date or state a duration when the query asks when or how long (`timeAnswer`);
 * 2. session evidence: scores scaled to the best hit, plus 0.2 x the best scaled score of the
 *    memory's session (`metadata.sessionId`; a memory without one is its own session);
 * 3. turn priors: x(content terms)^0.2, and x0.8 for content that ends by asking (`endsInQuestion`).
 * Returns the hits rescored, best first.
 */
export function applyKeywordEvidence(hits: readonly SearchHit[], options: KeywordEvidenceOptions): SearchHit[] {
  if (hits.length === 0) return [];
  let scores = hits.map((h) => {
    if (options.spans.length === 0 && !options.timeAnswer) return h.score;
    const dates = mentionedDates(h);
    const named =
      options.spans.length > 0 &&
      (inTimeSpans(Number(h.record.attributes.occurredAt ?? Number.NaN), options.spans) ||
        dates.some((d) => overlaps(d, options.spans)));
    const answers = options.timeAnswer !== undefined && (dates.length > 0 || statesDuration(h.record.text));
    return h.score * (named ? 1 + DATE_EVIDENCE_BOOST : 1) * (answers ? 1 + TIME_ANSWER_BOOST : 1);
  });
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
      return s * length ** LENGTH_PRIOR * (endsInQuestion(text) ? 1 - QUESTION_PENALTY : 1);
    });
  }
  return hits
    .map((h, i) => ({ ...h, score: scores[i]! }))
    .sort((a, b) => b.score - a.score || (a.record.id < b.record.id ? -1 : 1));
}
