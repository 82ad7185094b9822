export { inTimeSpans, timeSpansInQuery } from './query-time-spans';
export type { TimeSpan } from './time-span';
