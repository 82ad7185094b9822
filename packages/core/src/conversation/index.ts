export { conversationInputs, DEFAULT_CONVERSATION_WINDOW, spokenDate, turnLine } from './conversation-inputs';
export type { ConversationTurn } from './conversation-turn';
export type { RememberConversationOptions } from './remember-conversation-options';
