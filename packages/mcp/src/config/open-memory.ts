import { type AgentMemory, importOptional, isPostgresUrl, POSTGRES_PACKAGE_MISSING } from '@agentmem/core';
import { createSqliteMemory, sqliteSnapshotFormat } from '@agentmem/sqlite';
import type { McpServerConfig } from './server-config';

type QdrantModule = typeof import('@agentmem/qdrant');
// A variable, so that bundlers leave the optional package out of this one.
const QDRANT_PACKAGE = '@agentmem/qdrant';
type PostgresModule = typeof import('@agentmem/postgres');
const POSTGRES_PACKAGE = '@agentmem/postgres';

/**
 * Opens the store the config names: the SQLite file (created when missing), a
 * PostgreSQL database (`postgres://…`) or a Qdrant collection. Without a fixed branch, project and reference memories
 * follow the git branch of the client's working directory.
 */
export async function openMemory(config: McpServerConfig): Promise<AgentMemory> {
  const scope = {
    ...(config.tenant !== undefined ? { tenant: config.tenant } : {}),
    ...(config.agentId !== undefined ? { agentId: config.agentId } : {}),
    ...(config.branch !== undefined ? { branch: config.branch } : { detectBranch: { cwd: config.cwd } }),
  };
  if (isPostgresUrl(config.db)) {
    const { createPostgresMemory } = await importOptional(
      () => import(POSTGRES_PACKAGE) as Promise<PostgresModule>,
      POSTGRES_PACKAGE_MISSING,
    );
    return createPostgresMemory({ connectionString: config.db, ...scope, snapshotFormat: sqliteSnapshotFormat });
  }
  if (!config.qdrant) return createSqliteMemory({ path: config.db, ...scope });
  const { createQdrantMemory } = await loadQdrant();
  // Snapshots are SQLite files whatever the backend (teleport between backends).
  return createQdrantMemory({ ...config.qdrant, ...scope, snapshotFormat: sqliteSnapshotFormat });
}

// Optional: only Qdrant users install it.
function loadQdrant(): Promise<QdrantModule> {
  return importOptional(
    () => import(QDRANT_PACKAGE) as Promise<QdrantModule>,
    '--qdrant-url needs the Qdrant backend: run `npm i @agentmem/qdrant` next to @agentmem/mcp, or drop --qdrant-url to use the embedded SQLite store.',
  );
}
