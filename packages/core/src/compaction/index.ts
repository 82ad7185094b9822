export type { ChatMessage, ChatPart } from './chat-message';
export {
  type CompactionLevel,
  type CompactionOptions,
  type CompactionReport,
  type CompactionResult,
  compactMessages,
  splitConversation,
} from './compact';
export { approximateTokens, countMessages, messageText, type TokenCounter } from './token-counter';
