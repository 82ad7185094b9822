import { type AgentMemory, type AgentMemoryOptions, createAgentMemory } from '@agentmem/core';
import { PostgresBackend, type PostgresBackendOptions } from '../backend';

export interface PostgresMemoryOptions extends Omit<AgentMemoryOptions, 'backend'>, PostgresBackendOptions {}

const BACKEND_KEYS = [
  'connectionString',
  'pool',
  'schema',
  'table',
  'maxConnections',
  'statementTimeoutMs',
  'retry',
  'hnsw',
  'keywordRanking',
] as const satisfies readonly (keyof PostgresBackendOptions)[];

/**
 * An AgentMemory on a PostgreSQL table (created and migrated when needed).
 * Checks the stored embedder before returning, so a wrong embedder or
 * dimension fails here with both named. Pass `snapshotFormat:
 * sqliteSnapshotFormat` (from @agentmem/sqlite) to snapshot and merge files.
 */
export async function createPostgresMemory(options: PostgresMemoryOptions): Promise<AgentMemory> {
  const backendOptions: Record<string, unknown> = {};
  const memoryOptions: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(options ?? {})) {
    if ((BACKEND_KEYS as readonly string[]).includes(key)) backendOptions[key] = value;
    else memoryOptions[key] = value;
  }
  const backend = new PostgresBackend(backendOptions as PostgresBackendOptions);
  try {
    return await createAgentMemory({ ...(memoryOptions as Omit<AgentMemoryOptions, 'backend'>), backend });
  } catch (error) {
    await backend.close();
    throw error;
  }
}
