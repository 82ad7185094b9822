import { type AgentMemory, type AgentMemoryOptions, createAgentMemory } from '@agentmem/core';
import { QdrantBackend, type QdrantBackendOptions } from './qdrant-backend';

export interface CreateQdrantMemoryOptions extends Omit<AgentMemoryOptions, 'backend'>, QdrantBackendOptions {}

const BACKEND_KEYS = [
  'url',
  'apiKey',
  'client',
  'collection',
  'timeoutMs',
  'retry',
  'checkCompatibility',
  'batchSize',
  'tenantIndex',
  'shardNumber',
  'replicationFactor',
  'writeConsistencyFactor',
] as const satisfies readonly (keyof QdrantBackendOptions)[];

/**
 * An AgentMemory on a Qdrant collection (`createAgentMemory` with a QdrantBackend). Opens (or creates) the collection
 * and checks the stored embedder before returning, so a wrong embedder or
 * dimension fails here with both named.
 */
export async function createQdrantMemory(options: CreateQdrantMemoryOptions): Promise<AgentMemory> {
  const backendOptions: Partial<QdrantBackendOptions> = {};
  const memoryOptions: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(options)) {
    if ((BACKEND_KEYS as readonly string[]).includes(key)) (backendOptions as Record<string, unknown>)[key] = value;
    else memoryOptions[key] = value;
  }
  const backend = new QdrantBackend(backendOptions as QdrantBackendOptions);
  try {
    return await createAgentMemory({ ...(memoryOptions as Omit<AgentMemoryOptions, 'backend'>), backend });
  } catch (error) {
    await backend.close();
    throw error;
  }
}
