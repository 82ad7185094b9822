export { inTimeSpans, timeSpansInQuery } from './query-time-spans';
export type { TimeSpan } from './time-span';
export {
  applyKeywordEvidence,
  DATE_EVIDENCE_BOOST,
  type KeywordEvidenceOptions,
  LENGTH_PRIOR,
  QUESTION_PENALTY,
  SESSION_EVIDENCE_WEIGHT,
} from './keyword-evidence';
