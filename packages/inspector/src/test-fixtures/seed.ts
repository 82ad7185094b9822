import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentMemory } from '@agentmem/core';
import { createSqliteMemory, sqliteSnapshotFormat } from '@agentmem/sqlite';
import type { InspectorStoreSettings } from '../stores';

export interface SeededStore {
  dir: string;
  path: string;
  memory: AgentMemory;
  /** What the inspector needs to know of how the store was opened (as the CLI passes it). */
  settings: InspectorStoreSettings;
  /** A teammate's snapshot: one memory changed since it came from this store (a conflict), one new. */
  snapshotPath: string;
  /** The memory the snapshot changed. */
  conflictId: string;
  /** A memory with several history entries (created, updated, superseded). */
  historyId: string;
  cleanup(): Promise<void>;
}

/**
 * A small but complete SQLite store: two tenants, two branches, all four
 * types, inactive memories, tags, history, skills in several formats, and a
 * teammate's snapshot that conflicts with it.
 */
export async function seedStore(): Promise<SeededStore> {
  const dir = mkdtempSync(join(tmpdir(), 'agentmem-inspector-'));
  const path = join(dir, 'memory.db');
  const memory = await createSqliteMemory({ path, branch: 'main', agentId: 'claude-code' });
  await memory.rememberMany([
    {
      content: 'The user prefers TypeScript with strict mode enabled',
      type: 'user',
      importance: 0.9,
      tags: ['preferences'],
    },
    { content: 'The user lives in Lisbon and works in UTC+0', type: 'user', importance: 0.6 },
    { content: 'Always run the linter before committing', type: 'feedback', importance: 0.8, tags: ['workflow'] },
    { content: 'Do not mock the database in integration tests', type: 'feedback', importance: 0.7, tags: ['testing'] },
    {
      content: 'The staging cluster runs Kubernetes 1.29 on three nodes',
      type: 'project',
      importance: 0.7,
      tags: ['infra'],
    },
    { content: 'Deploys happen on Tuesdays after the standup', type: 'project', importance: 0.5 },
    { content: 'The API reference lives at docs/api.md', type: 'reference', importance: 0.4 },
  ]);
  const db = await memory.remember({
    content: 'The main database is PostgreSQL 15',
    type: 'project',
    importance: 0.8,
    tags: ['infra'],
  });
  await memory.update(db.id, {
    content: 'The main database is PostgreSQL 16 since the March upgrade',
    tags: ['infra', 'database'],
  });
  await memory.rememberWithConflictCheck(
    { content: 'The main database is PostgreSQL 17 since the October upgrade', type: 'project', importance: 0.8 },
    { resolution: 'supersede', threshold: 0.3 },
  );
  const feature = memory.withScope({ branch: 'feature-x' });
  await feature.rememberMany([
    { content: 'Feature X stores drafts in Redis with a one-day TTL', type: 'project', importance: 0.6 },
    { content: 'Feature X is behind the drafts-v2 flag', type: 'project', importance: 0.5, tags: ['flags'] },
  ]);
  const alice = memory.withScope({ tenant: 'alice' });
  await alice.rememberMany([
    { content: 'Alice prefers dark mode in every editor', type: 'user', importance: 0.6 },
    { content: 'Alice reviews pull requests in the morning', type: 'user', importance: 0.4 },
  ]);
  await memory.skills.registerMany([
    {
      name: 'react-components',
      description: 'How we write React components',
      content: 'Use function components and hooks. Keep components small.',
      globPatterns: ['**/*.tsx'],
      triggerKeywords: ['react', 'component'],
      source: { path: '.cursor/rules/react.mdc', format: 'cursor-rules' },
    },
    {
      name: 'database-migrations',
      description: 'Writing and running database migrations safely',
      content: 'Every migration is reversible. Run migrations in a transaction.',
      triggerKeywords: ['migration'],
      globPatterns: ['migrations/**'],
      source: { path: 'skills/database-migrations/SKILL.md', format: 'agent-skills' },
    },
    {
      name: 'release-notes',
      description: 'Drafting release notes for a version',
      content: 'Group changes by package; link the pull requests.',
      source: { path: '.claude/rules/release-notes.md', format: 'claude-rules' },
    },
    { name: 'code-style', description: 'House code style', content: 'Two spaces, single quotes.', alwaysApply: true },
  ]);

  // The teammate: starts from our snapshot, edits one memory later, learns one new thing.
  const ours = join(dir, 'ours.agentmem');
  await memory.snapshot(ours);
  const teammate = await createSqliteMemory({ path: join(dir, 'teammate.db'), branch: 'main', agentId: 'teammate' });
  await teammate.merge(ours);
  const [deploys] = await teammate.recall('deploys tuesdays standup', { k: 1 });
  await new Promise((r) => setTimeout(r, 5)); // a later updatedAt than ours
  await teammate.update(deploys!.memory.id, { content: 'Deploys happen on Wednesdays after the standup' });
  await teammate.remember({ content: 'The on-call rotation changes every Monday', type: 'project', importance: 0.6 });
  const snapshotPath = join(dir, 'teammate.agentmem');
  await teammate.snapshot(snapshotPath);
  await teammate.close();

  return {
    dir,
    path,
    memory,
    settings: { snapshotFormat: sqliteSnapshotFormat },
    snapshotPath,
    conflictId: deploys!.memory.id,
    historyId: db.id,
    async cleanup() {
      await memory.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
