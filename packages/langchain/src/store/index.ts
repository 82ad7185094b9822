export { AgentMemoryStore, type AgentMemoryStoreOptions, LANGGRAPH_ITEM_KIND } from './agent-memory-store';
export { fromAgentmemNamespace, LANGGRAPH_PREFIX, toAgentmemNamespace } from './namespace-mapping';
