export { SessionSummary, type SessionSummaryOptions, type SummaryUpdate, type Summarizer, sessionNamespace, sessionSummaryId } from './session-summary';
export { SESSION_SUMMARY_INSTRUCTIONS, summaryPrompt } from './summary-prompt';
