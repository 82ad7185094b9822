export { inTimeSpans, timeSpansInQuery } from './query-time-spans';
export type { TimeSpan } from './time-span';
export { statesDuration, type TimeAnswer, timeAnswerIn } from './time-answer';
export { type TimeMention, type TimeUnit, timeMentions } from './time-mentions';
export {
  applyKeywordEvidence,
  DATE_EVIDENCE_BOOST,
  type KeywordEvidenceOptions,
  LENGTH_PRIOR,
  QUESTION_PENALTY,
  SESSION_EVIDENCE_WEIGHT,
  TIME_ANSWER_BOOST,
} from './keyword-evidence';
