export { AgentMemoryClassic, type AgentMemoryClassicOptions } from './agent-memory-classic';
