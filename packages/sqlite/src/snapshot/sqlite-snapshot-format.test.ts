import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentMemoryError, HISTORY_PENDING, KIND } from '@agentmem/core';
import Database from 'better-sqlite3';
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

  it.each([
    ['the file copy', false],
    ['the copy through the contract', true],
  ])('writes the create entries rememberMany left implied as rows and counts them (%s)', async (_, viaContract) => {
    const memory = await createSqliteMemory({ path: join(dir, `implied-${viaContract}.db`), agentId: 'a1' });
    const target = join(dir, `implied-${viaContract}.snap`);
    try {
      const created = await memory.rememberMany([
        { content: 'Orders live in PostgreSQL 16', type: 'project' },
        { content: 'Alice prefers short answers', type: 'user' },
        { content: 'Invoices are sent on the first of the month', type: 'project' },
      ]);
      await memory.update(created[1]!.id, { importance: 0.9 }); // folded: a create row and an update row
      const before = await Promise.all(created.map((m) => memory.history(m.id)));
      const result = await memory.snapshot(target, { viaContract });
      expect(result.manifest.counts.history).toBe(4);
      expect(result.manifest.counts.memories).toBe(3);
      const raw = new Database(target, { readonly: true });
      try {
        const rows = raw.prepare("SELECT count(*) FROM records WHERE attr_kind = 'history'").pluck().get();
        expect(rows).toBe(4);
        const marked = raw
          .prepare(`SELECT count(*) FROM records WHERE attributes ->> '$.${HISTORY_PENDING}' = 1`)
          .pluck()
          .get();
        expect(marked).toBe(0);
      } finally {
        raw.close();
      }
      // The snapshot opened as a store: the same history, entry for entry (ids included).
      const copy = await createSqliteMemory({ path: target });
      try {
        expect(await Promise.all(created.map((m) => copy.history(m.id)))).toEqual(before);
        expect(await copy.backend.count({ tenant: null, where: { kind: KIND.history } })).toBe(4);
      } finally {
        await copy.close();
      }
      // And the source is as it was: its implied entries stay implied.
      expect(await Promise.all(created.map((m) => memory.history(m.id)))).toEqual(before);
    } finally {
      await memory.close();
    }
  });
});
