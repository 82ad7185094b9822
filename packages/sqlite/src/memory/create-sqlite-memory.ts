import { type AgentMemory, type AgentMemoryOptions, createAgentMemory } from '@agentmem/core';
import { SqliteBackend, type SqliteBackendOptions } from '../backend';
import { sqliteSnapshotFormat } from '../snapshot';

export interface SqliteMemoryOptions extends Omit<AgentMemoryOptions, 'backend'>, SqliteBackendOptions {}

/**
 * An opened AgentMemory on one SQLite file (created with its parent directory
 * when missing). Refuses a file built with another embedder.
 */
export async function createSqliteMemory(options: SqliteMemoryOptions): Promise<AgentMemory> {
  const { path, busyTimeoutMs, readonly, mmapBytes, denseSearch, ...rest } = options ?? ({} as SqliteMemoryOptions);
  const backend = new SqliteBackend({ path, busyTimeoutMs, readonly, mmapBytes, denseSearch });
  try {
    return await createAgentMemory({ snapshotFormat: sqliteSnapshotFormat, ...rest, backend });
  } catch (error) {
    await backend.close();
    throw error;
  }
}
