// The main entry needs only @langchain/core. The LangChain agent middleware
// (`@agentmem/langchain/middleware`, needs `langchain`) and the LangGraph store
// (`@agentmem/langchain/store`, needs `@langchain/langgraph-checkpoint`) are
// their own entry points, so their optional peers are loaded only where used.
export * from './classic-memory';
export * from './embedder';
export { chatModelExtractor } from './middleware/chat-model-extractor';
export { fromChatMessages, toChatMessages, withContextBlock } from './middleware/messages';
export { defaultScope, type MemoryScope, type ScopeResolver } from './middleware/scope';
export * from './retriever';
export { fromAgentmemNamespace, LANGGRAPH_PREFIX, toAgentmemNamespace } from './store/namespace-mapping';
export * from './tools';
