import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BackendRecord } from '@agentmem/core';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteBackend } from '../backend';

const dir = mkdtempSync(join(tmpdir(), 'agentmem-sqlite-links-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

const rec = (id: string, links?: string[]): BackendRecord => ({
  id,
  namespace: 'user',
  tenant: '',
  text: `record ${id}`,
  attributes: { kind: 'memory' },
  payload: {},
  ...(links ? { links } : {}),
});

const tables = (b: SqliteBackend) =>
  (
    b.database
      .prepare("SELECT name FROM sqlite_schema WHERE name LIKE 'entity_%' AND type = 'table' ORDER BY name")
      .all() as {
      name: string;
    }[]
  ).map((r) => r.name);

describe('SqliteBackend entity links', () => {
  it('a file without links has no link tables and answers counts of 0; the first link creates them', async () => {
    const path = join(dir, `links-${n++}.db`);
    const b = new SqliteBackend({ path });
    await b.init({ dimension: 4 });
    await b.upsert([rec('a'), rec('b')]);
    expect(tables(b)).toEqual([]);
    expect(await b.linked({ tenant: '', keys: ['luna'], limit: 5 })).toEqual([{ key: 'luna', count: 0, ids: [] }]);
    expect(await b.linkKeys({ tenant: '' })).toEqual({ keys: [] });
    expect(tables(b)).toEqual([]); // reads create nothing
    await b.upsert([rec('c', ['luna'])]);
    expect(tables(b)).toEqual(['entity_counts', 'entity_links']);
    expect(await b.linked({ tenant: '', keys: ['luna'], limit: 5 })).toEqual([{ key: 'luna', count: 1, ids: ['c'] }]);
    await b.close();
  });

  it('links survive a reopen and are read from a read-only file', async () => {
    const path = join(dir, `links-${n++}.db`);
    const writer = new SqliteBackend({ path });
    await writer.init({ dimension: 4 });
    await writer.upsert([rec('a', ['melani', 'date:2023-05-07']), rec('b', ['melani'])]);
    await writer.close();
    const reader = new SqliteBackend({ path, readonly: true });
    expect((await reader.get(['a']))[0]?.links).toEqual(['date:2023-05-07', 'melani']);
    expect(await reader.linked({ tenant: '', keys: ['melani'], limit: 5 })).toEqual([
      { key: 'melani', count: 2, ids: ['a', 'b'] },
    ]);
    await reader.close();
  });

  it('a rolled-back transaction that created the link tables leaves none, and the next write creates them again', async () => {
    const b = new SqliteBackend({ path: join(dir, `links-${n++}.db`) });
    await b.init({ dimension: 4 });
    await expect(
      b.transaction(async () => {
        await b.upsert([rec('a', ['luna'])]);
        throw new Error('injected failure');
      }),
    ).rejects.toThrow('injected failure');
    expect(tables(b)).toEqual([]);
    await b.upsert([rec('a', ['luna'])]);
    expect(await b.linked({ tenant: '', keys: ['luna'], limit: 5 })).toEqual([{ key: 'luna', count: 1, ids: ['a'] }]);
    await b.close();
  });
});
