/**
 * A question that asks for a list: a plural noun it asks about followed by its verb ("What activities
 * does Melanie partake in?", "Which cities has Jon visited?"), "what kinds / types / sorts of", "how
 * many", "what are some". English grammar, not any one dataset's phrasing: a singular "What activity
 * does ..." or "What is ..." is not a list question.
 */
const LIST_QUESTION =
  /^\s*(?:(?:what|which)\s+(?:[\w-]+\s+){0,2}?[\w-]*[^s\W]s\s+(?:do|does|did|has|have|had|are|were|can|could|would|will)\b|(?:what|which)\s+(?:kinds|types|sorts)\s+of\b|how\s+many\b|what\s+are\s+some\b)/i;

/** Whether a query asks for a list (its answer joins turns from many places of a conversation). */
export function isListQuestion(query: string): boolean {
  // Every list question opens with one of these words: others skip the pattern, whose first run
  // compiles it. `trimStart` drops what `\s*` does, and the `i` flag folds ASCII letters only.
  const head = query.trimStart().slice(0, 5).toLowerCase();
  if (!(head.startsWith('what') || head.startsWith('which') || head.startsWith('how'))) return false;
  return LIST_QUESTION.test(query);
}
