import type { SearchHit } from '../contracts';
import { byScore, endsInQuestion, turnPlace } from './conversation-turn';
import { isListQuestion } from './list-question';

/**
 * The turn right after a candidate that ends in a question scores at least this times the question's
 * score. Questions are rarely the answer (turn priors lower them), but the reply that follows one
 * often is: "How often do you all work out together?" is answered by "Three times a week", which
 * shares no word with it. Tuned by leave-one-conversation-out on LoCoMo dev (docs/benchmarks.md).
 */
export const REPLY_EVIDENCE_WEIGHT = 1;

/**
 * The reply's share for a question that asks neither when / how long nor for a list ("Why did
 * Caroline choose the adoption agency?", "What is Jon's favorite style of dance?"): such a question is
 * answered by one turn, and when the store holds the same question asked in the chat ("What made you
 * pick it?"), the turn after it is that answer, so it ranks just above the question (which turn priors
 * lower by x0.8) instead of level with it. Time questions keep `REPLY_EVIDENCE_WEIGHT` (time evidence
 * ranks them; more cost temporal R@10 before), and so do list questions, answered by the person's own
 * turns across sessions. LoCoMo dev, leave-one-conversation-out over 1 / 1.1 / 1.125 / 1.15 / 1.175 /
 * 1.2 / 1.25: R@5 74.7 -> 75.8, R@10 83.4 -> 83.7, no category lower (docs/benchmarks.md).
 */
export const REPLY_ANSWER_WEIGHT = 1.15;

/** The reply share for a query (`asksTime`: it asks when or how long, `timeAnswerIn`). */
export function replyWeightFor(query: string, asksTime: boolean): number {
  return asksTime || isListQuestion(query) ? REPLY_EVIDENCE_WEIGHT : REPLY_ANSWER_WEIGHT;
}

/**
 * Reply evidence (docs/entities.md): among the candidates, a conversation turn
 * (`metadata.sessionId` and `metadata.turn`) whose previous turn of the same
 * session is a candidate that ends by asking (`endsInQuestion`) scores at least `weight` (default
 * `REPLY_EVIDENCE_WEIGHT`; recall passes `replyWeightFor(query)`) x that question's score. Only
 * candidates move: no record is read. Returns the hits rescored, best first.
 */
export function applyReplyEvidence(hits: readonly SearchHit[], weight = REPLY_EVIDENCE_WEIGHT): SearchHit[] {
  // A turn number counts within one `rememberConversation` call: two calls with the same session id
  // (one exchange per call, or two conversations both saying "session_1") each have a turn 1. A place
  // that two candidates claim is ambiguous (-1), and neither side of it is joined to a question or reply.
  const places = hits.map((h) => {
    const place = turnPlace(h);
    return place && { scope: `${h.record.tenant}\u0000${h.record.namespace}\u0000${place.session}`, turn: place.turn };
  });
  const at = new Map<string, number>();
  places.forEach((p, i) => {
    if (!p) return;
    const key = `${p.scope}\u0000${p.turn}`;
    at.set(key, at.has(key) ? -1 : i);
  });
  if (at.size === 0) return [...hits];
  const scores = hits.map((h) => h.score);
  hits.forEach((h, i) => {
    const p = places[i];
    if (!p || !endsInQuestion(h.record.text) || at.get(`${p.scope}\u0000${p.turn}`) === -1) return;
    const next = at.get(`${p.scope}\u0000${p.turn + 1}`) ?? -1;
    if (next >= 0) scores[next] = Math.max(scores[next]!, weight * h.score);
  });
  return hits.map((h, i) => (scores[i] === h.score ? h : { ...h, score: scores[i]! })).sort(byScore);
}
