export { AgentMemory, type AgentMemoryOptions, type ContextOptions, createAgentMemory, type PromptContext } from './agent-memory';
