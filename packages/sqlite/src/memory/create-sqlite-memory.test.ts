import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isAgentmemDatabase } from '../schema';
import { createSqliteMemory } from './create-sqlite-memory';

const dir = mkdtempSync(join(tmpdir(), 'agentmem-sqlite-memory-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('createSqliteMemory', () => {
  it('passes the backend options through: a wrong denseSearch is refused, not ignored', async () => {
    const path = join(dir, 'dense-option.db');
    await expect(createSqliteMemory({ path, denseSearch: 'fast' as 'exact' })).rejects.toThrow(/denseSearch/);
    const exact = await createSqliteMemory({ path, denseSearch: 'exact' });
    try {
      const kept = await exact.remember({ content: 'The staging cluster runs Kubernetes 1.29', type: 'project' });
      expect((await exact.recall('kubernetes staging cluster', { k: 1, mode: 'dense' }))[0]?.memory.id).toBe(kept.id);
    } finally {
      await exact.close();
    }
  });

  it('recalls the right memory with the FTS5 keyword signal, across reopen, per tenant and branch', async () => {
    const path = join(dir, '.agentmem', 'memory.db');
    const first = await createSqliteMemory({ path, tenant: 'alice', branch: 'feature-x' });
    const target = await first.remember({
      content: 'The staging cluster runs Kubernetes 1.29 on three nodes',
      type: 'project',
    });
    await first.rememberMany([
      { content: 'Alice prefers dark mode in every editor', type: 'user' },
      { content: 'Deploys happen on Tuesdays after the standup', type: 'project' },
      { content: 'Use pnpm rather than npm in the web repository', type: 'feedback' },
    ]);
    await first.close();
    expect(isAgentmemDatabase(path)).toBe(true);

    const memory = await createSqliteMemory({ path, tenant: 'alice', branch: 'feature-x' });
    try {
      const [top] = await memory.recall('which kubernetes version does staging run?', { k: 3 });
      expect(top?.memory.id).toBe(target.id);
      expect(top?.signals.keyword?.rank).toBe(1);
      expect(top?.signals.keyword?.score).toBeGreaterThan(0);
      expect(top?.memory.accessCount).toBe(1);
      const [again] = await memory.recall('kubernetes', { k: 1, mode: 'keyword' });
      expect(again?.memory.id).toBe(target.id);
      expect(again?.memory.accessCount).toBe(2); // reinforcement was persisted by patch

      const otherBranch = memory.withScope({ branch: 'main' });
      expect((await otherBranch.recall('kubernetes staging', { k: 3 })).map((r) => r.memory.id)).not.toContain(
        target.id,
      );
      const bob = memory.withScope({ tenant: 'bob' });
      expect(await bob.recall('kubernetes staging', { k: 3 })).toEqual([]);
      expect((await memory.stats()).total).toBe(4);
    } finally {
      await memory.close();
    }
  });
});
