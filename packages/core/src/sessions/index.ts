export { SessionSummary, type SessionSummaryOptions, type SummaryUpdate, type Summarizer, sessionNamespace } from './session-summary';
