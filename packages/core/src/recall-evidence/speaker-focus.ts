import type { SearchHit } from '../contracts';
import { keywordTerms } from '../text/keyword-terms';
import { byScore, speakerOf } from './conversation-turn';
import { isListQuestion } from './list-question';

/**
 * What a turn of a speaker the query names gains, as a share of the best candidate's score. Added,
 * not multiplied: it lifts the person's own turns that match the rest of the question weakly ("What
 * activities does Melanie partake in?" and her "I'm off to go swimming with the kids") above other
 * weak matches, and leaves a strong match by someone else in place (a question that names the wrong
 * person must still find who did it). Tuned by leave-one-conversation-out on LoCoMo dev
 * (docs/benchmarks.md): larger shares raise multi-hop and cost adversarial questions.
 */
export const SPEAKER_FOCUS_WEIGHT = 0.03;

/**
 * The share for a question that asks for a list (`isListQuestion`: "What books has John read?", "How
 * many tournaments has Nate won?"): its answer is several turns of the person, in different sessions,
 * that each match the question weakly, so the person's own turns gain more. Chosen by
 * leave-one-conversation-out on LoCoMo dev (0.15 in four of five folds; docs/entities.md).
 */
export const LIST_FOCUS_WEIGHT = 0.15;

/**
 * When the named speakers' own best candidate scores at least this share of the best candidate, the
 * question is about them (their turns match it as well as anyone's), and their turns gain the list
 * share (`listWeight`) even for a question that does not ask for a list. A question naming the wrong
 * person (its best matches are someone else's turns) keeps the small share. Chosen on LoCoMo dev
 * (0.9 / 1 x share 0.08 / 0.15 / 0.3; docs/entities.md): multi-hop R@10 +1.5, R@5 +1.0.
 */
export const FOCUS_CONFIDENCE = 0.9;
/**
 * Score a turn loses when someone other than the named speaker said it and it names them: in a chat,
 * a name in another person's turn addresses the listener ("Hey Melanie!", "Thanks, Melanie. ...") and
 * matches the question's name without being about what the person did. Chosen on LoCoMo dev (0.05 /
 * 0.1 / 0.2 / 0.3; docs/entities.md): R@5 +0.5, multi-hop +0.8, adversarial +0.9.
 */
export const LISTENER_MENTION_PENALTY = 0.1;

export interface SpeakerFocusOptions {
  /** The share for a list question; default `LIST_FOCUS_WEIGHT` (the store's `listFocus`). */
  listWeight?: number;
  /**
   * The query asks when or how long (`timeAnswerIn`): only the small share, no confident focus and
   * no listener penalty. Time evidence ranks these; the two cost temporal questions 0.6-1.0 R@10.
   */
  asksTime?: boolean;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Speaker focus (docs/entities.md): when the query names some but not all of the
 * speakers among the candidates (`metadata.speaker`, as `rememberConversation`
 * writes it; a name counts when all its keyword terms are in the query), the
 * turns those speakers said gain `SPEAKER_FOCUS_WEIGHT` x the best score
 * (`listWeight` x for a question that asks for a list, or when their best turn scores at least
 * `FOCUS_CONFIDENCE` x the best), and another speaker's turns that name them keep
 * `1 - LISTENER_MENTION_PENALTY` of their score. A question naming every speaker ("What do
 * Jon and Gina have in common?") favours nobody. Returns the hits rescored,
 * best first.
 */
export function applySpeakerFocus(
  hits: readonly SearchHit[],
  query: string,
  options: SpeakerFocusOptions = {},
): SearchHit[] {
  const speakers = new Set<string>();
  for (const h of hits) {
    const s = speakerOf(h);
    if (s !== undefined) speakers.add(s);
  }
  if (speakers.size < 2) return [...hits];
  const terms = new Set(keywordTerms(query));
  const named = new Set(
    [...speakers].filter((s) => {
      const name = keywordTerms(s);
      return name.length > 0 && name.every((t) => terms.has(t));
    }),
  );
  if (named.size === 0 || named.size === speakers.size) return [...hits];
  const best = Math.max(...hits.map((h) => h.score));
  if (!(best > 0)) return [...hits];
  const listWeight = options.listWeight ?? LIST_FOCUS_WEIGHT;
  let weight = isListQuestion(query) ? listWeight : SPEAKER_FOCUS_WEIGHT;
  if (options.asksTime) {
    return hits.map((h) => (named.has(speakerOf(h)!) ? { ...h, score: h.score + weight * best } : h)).sort(byScore);
  }
  const namedBest = Math.max(0, ...hits.filter((h) => named.has(speakerOf(h)!)).map((h) => h.score));
  if (namedBest >= FOCUS_CONFIDENCE * best) weight = Math.max(weight, listWeight);
  // A named speaker's name as a word anywhere in another speaker's turn (its own "Name:" prefix is its speaker's).
  const mentions = [...named].map((n) => new RegExp(`\\b${escapeRegExp(n.trim())}\\b`, 'i'));
  return hits
    .map((h) => {
      const speaker = speakerOf(h);
      if (speaker !== undefined && named.has(speaker)) return { ...h, score: h.score + weight * best };
      if (speaker !== undefined && mentions.some((m) => m.test(h.record.text)))
        return { ...h, score: h.score * (1 - LISTENER_MENTION_PENALTY) };
      return h;
    })
    .sort(byScore);
}
