export {
  type AgentMemoryMiddleware,
  type AgentMemoryMiddlewareOptions,
  agentMemoryMiddleware,
  type ExtractionSettings,
} from './agent-memory-middleware';
export { type AgentMemoryCallOptions, PROVIDER_OPTIONS_KEY, readCallOptions, scopedMemory } from './call-options';
export { injectIntoPrompt, type LatestUserTurn, latestUserTurn } from './prompt';
