import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentMemoryError } from '@agentmem/core';
import { afterAll, describe, expect, it } from 'vitest';
import { createSqliteMemory } from '../memory';

const dir = mkdtempSync(join(tmpdir(), 'agentmem-sqlite-snapshot-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('sqliteSnapshotFormat', () => {
  it('refuses a snapshot path under a file with an error naming the path (not EEXIST from mkdir)', async () => {
    writeFileSync(join(dir, 'a'), 'a file');
    const memory = await createSqliteMemory({ path: join(dir, 'memory.db') });
    try {
      await memory.remember({ content: 'Orders live in PostgreSQL 16', type: 'project' });
      const target = join(dir, 'a', 'x.snap');
      const error = await memory.snapshot(target).catch((e: unknown) => e);
      expect(AgentMemoryError.hasCode(error, 'INVALID_INPUT')).toBe(true);
      expect((error as Error).message).toBe(
        `Cannot create ${target}: a file, not a directory, is in the way on its path. Choose a path whose parent is a directory.`,
      );
    } finally {
      await memory.close();
    }
  });
});
