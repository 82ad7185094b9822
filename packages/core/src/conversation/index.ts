export type { ConversationTurn } from './conversation-turn';
export type { RememberConversationOptions } from './remember-conversation-options';
