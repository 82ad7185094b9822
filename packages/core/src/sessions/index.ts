export { SessionSummary, type SessionSummaryOptions, type SummaryUpdate, type Summarizer, sessionNamespace, sessionSummaryId } from './session-summary';
