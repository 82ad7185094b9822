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

export interface SpeakerFocusOptions {
  /** The share for a list question; default `LIST_FOCUS_WEIGHT` (the store's `listFocus`). */
  listWeight?: number;
}

/**
 * Speaker focus (docs/entities.md): when the query names some but not all of the
 * speakers among the candidates (`metadata.speaker`, as `rememberConversation`
 * writes it; a name counts when all its keyword terms are in the query), the
 * turns those speakers said gain `SPEAKER_FOCUS_WEIGHT` x the best score
 * (`listWeight` x for a question that asks for a list). A question naming every speaker ("What do
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
  const weight = isListQuestion(query) ? (options.listWeight ?? LIST_FOCUS_WEIGHT) : SPEAKER_FOCUS_WEIGHT;
  return hits.map((h) => (named.has(speakerOf(h)!) ? { ...h, score: h.score + weight * best } : h)).sort(byScore);
}
