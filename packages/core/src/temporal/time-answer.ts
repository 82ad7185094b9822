import { NUMBER_WORDS } from './time-mentions';

/** What kind of time a question asks for: a date ("when ...") or a duration ("how long ..."). */
export type TimeAnswer = 'date' | 'duration';

const OPENING = String.raw`^[\s"'“(]*(?:(?:and|so|but|also|ok|okay)[\s,]+)?`;
const ASKS_DATE = new RegExp(
  `${OPENING}(?:when|since when|until when|(?:on|in|at|by|during) (?:what|which) (?:year|month|date|day|week|time)|what (?:year|month|date|day|week|time)|which (?:year|month|date|day|week)|how (?:long|many (?:years|months|weeks|days)) ago)\\b`,
  'i',
);
const ASKS_DURATION = new RegExp(`${OPENING}how long\\b`, 'i');
const AMOUNT = `(?:\\d+|${Object.keys(NUMBER_WORDS).join('|')})`;
/** A span of time stated ("for 3 years", "two months now", "since 2019", "half a year"). */
const DURATION = new RegExp(
  `\\b(?:for|over|about|around|nearly|almost|under|past) (?:the )?${AMOUNT} (?:days?|weeks?|months?|years?)\\b|\\b${AMOUNT} (?:days?|weeks?|months?|years?) (?:now|already|so far|straight|in a row)\\b|\\bsince (?:(?:19|20)\\d{2}|i was|we were|childhood|college|school)\\b|\\bhalf an? (?:year|month|week|day)\\b`,
  'i',
);

/**
 * The kind of time a question asks for, read from how it opens: "When did
 * ...", "What year ...", "How long ago ..." ask for a date; "How long has
 * ..." for a duration. Undefined for other questions.
 */
export function timeAnswerIn(query: string): TimeAnswer | undefined {
  if (!mayAskTime(query.toLowerCase())) return undefined;
  if (ASKS_DATE.test(query)) return 'date';
  if (ASKS_DURATION.test(query)) return 'duration';
  return undefined;
}

const UNITS = ['year', 'month', 'date', 'day', 'week', 'time'];
/**
 * Whether the question holds the words every opening ASKS_DATE and ASKS_DURATION read holds ("when",
 * "how long", "how many", "what" or "which" and a unit): most queries skip both patterns, whose first
 * run compiles them (~1 ms of a new process's first recall). Their `i` flag folds ASCII letters only,
 * as `toLowerCase` does: a query they match passes.
 */
function mayAskTime(q: string): boolean {
  if (q.includes('when') || q.includes('how long') || q.includes('how many')) return true;
  return (q.includes('what ') || q.includes('which ')) && UNITS.some((u) => q.includes(u));
}

/** Whether a text states a span of time ("for three years", "since 2019"). */
export function statesDuration(text: string): boolean {
  return DURATION.test(text);
}
