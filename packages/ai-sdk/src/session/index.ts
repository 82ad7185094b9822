export { fromChatMessages, responseMessage, toChatMessages } from './prompt-messages';
export { type SessionMiddleware, type SessionMiddlewareOptions, sessionMiddleware } from './session-middleware';
export {
  SESSION_SUMMARY_INSTRUCTIONS,
  type SessionSummaryUsage,
  type SummarizeSessionOptions,
  summarizeSession,
} from './summarize';
