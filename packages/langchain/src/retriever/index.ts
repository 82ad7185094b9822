export { AgentMemoryRetriever, type AgentMemoryRetrieverInput } from './agent-memory-retriever';
