export { type AgentMemoryMiddlewareOptions, agentMemoryMiddleware } from './agent-memory-middleware';
export { chatModelExtractor } from './chat-model-extractor';
export { fromChatMessages, toChatMessages, withContextBlock } from './messages';
export { defaultScope, type MemoryScope, type ScopeResolver } from './scope';
export { type SessionMiddlewareOptions, sessionMiddleware } from './session-middleware';
