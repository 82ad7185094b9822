import { createHash } from 'node:crypto';
import {
  closeSync,
  copyFileSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  rmSync,
  statSync,
  truncateSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_IMAGE_BYTES } from '../schema/open-database';
import { createSqliteMemory } from './create-sqlite-memory';

const digest = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

/** The first `length` bytes of a file. */
function head(path: string, length: number): Buffer {
  const bytes = Buffer.alloc(length);
  const fd = openSync(path, 'r');
  try {
    readSync(fd, bytes, 0, length, 0);
  } finally {
    closeSync(fd);
  }
  return bytes;
}

/**
 * `readonly: true` reads a store without writing anything: no migration, no
 * reinforcement, and no `-wal`/`-shm` files (SQLite creates them to read a
 * WAL-mode file and a read-only open cannot remove them). Tests run as root
 * here, which ignores file modes; test/cli/read-only.test.ts runs the CLI as
 * an unprivileged user on a chmod'ed file and directory.
 */
describe('createSqliteMemory({ readonly: true }): reads with the default options, writes nothing', () => {
  let dir: string;
  let path: string;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'agentmem-readonly-'));
    path = join(dir, 'memory.db');
    const writer = await createSqliteMemory({ path, branch: 'main' });
    await writer.rememberMany([
      { content: 'The staging cluster runs Kubernetes 1.30', type: 'project' },
      { content: 'Deploys go out on Tuesdays', type: 'project' },
      { content: 'Prefers short answers', type: 'user' },
    ]);
    await writer.close();
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('recall, memories, stats, history and contextFor work, and the directory and file stay byte for byte', async () => {
    expect(readdirSync(dir)).toEqual(['memory.db']); // a clean close leaves the WAL checkpointed and removed
    const before = digest(path);
    const store = await createSqliteMemory({ path, branch: 'main', readonly: true });
    expect(store.backend.capabilities.readonly).toBe(true);
    const [top] = await store.recall('kubernetes staging');
    expect(top?.memory.content).toBe('The staging cluster runs Kubernetes 1.30');
    const all = [];
    for await (const m of store.memories()) all.push(m.content);
    expect(all.sort()).toEqual([
      'Deploys go out on Tuesdays',
      'Prefers short answers',
      'The staging cluster runs Kubernetes 1.30',
    ]);
    expect((await store.stats()).total).toBe(3);
    expect((await store.history(top!.memory.id)).map((h) => h.action)).toEqual(['create']);
    expect((await store.contextFor('when do deploys go out?')).block).toContain('Deploys go out on Tuesdays');
    expect(readdirSync(dir)).toEqual(['memory.db']);
    await store.close();
    expect(readdirSync(dir)).toEqual(['memory.db']);
    expect(digest(path)).toBe(before);
    // Recall did not reinforce: the access count is as the writer left it.
    const again = await createSqliteMemory({ path, branch: 'main', readonly: true });
    expect((await again.get(top!.memory.id))?.accessCount).toBe(0);
    await again.close();
  });

  it('refuses writes with a clear error and changes nothing', async () => {
    const before = digest(path);
    const store = await createSqliteMemory({ path, branch: 'main', readonly: true });
    await expect(store.remember({ content: 'A new fact', type: 'project' })).rejects.toThrow(/read-only/);
    await store.close();
    expect(readdirSync(dir)).toEqual(['memory.db']);
    expect(digest(path)).toBe(before);
  });

  it('while a writer has the file open, a read-only store reads its latest commits', async () => {
    const writer = await createSqliteMemory({ path, branch: 'main' });
    const reader = await createSqliteMemory({ path, branch: 'main', readonly: true });
    await writer.remember({ content: 'Release freeze starts on Friday', type: 'project' });
    expect((await reader.recall('release freeze'))[0]?.memory.content).toBe('Release freeze starts on Friday');
    expect((await reader.stats()).total).toBe(4);
    await reader.close();
    await writer.close();
    expect(readdirSync(dir)).toEqual(['memory.db']);
  });

  it('opens a file past 2 GiB (a 1M-memory store is ~4 GB) in place: too large for an in-memory image', async () => {
    // Sparse: the zeros past the store cost no disk, and SQLite takes the page count from the header.
    // Read whole, this failed: readFileSync refuses a file past 2 GiB, SQLite an image past MAX_IMAGE_BYTES.
    const big = join(dir, 'big.db');
    copyFileSync(path, big);
    const store = readFileSync(big);
    const size = 2 ** 31 + 4096;
    expect(size).toBeGreaterThan(MAX_IMAGE_BYTES);
    truncateSync(big, size);
    const reader = await createSqliteMemory({ path: big, branch: 'main', readonly: true });
    expect((await reader.recall('kubernetes staging'))[0]?.memory.content).toBe(
      'The staging cluster runs Kubernetes 1.30',
    );
    expect((await reader.stats()).total).toBe(3);
    await expect(reader.remember({ content: 'A new fact', type: 'project' })).rejects.toThrow(/read-only/);
    await reader.close();
    // Read in place, through the -wal and -shm SQLite creates (and a read-only open cannot remove).
    expect(readdirSync(dir).sort()).toEqual(['big.db', 'big.db-shm', 'big.db-wal', 'memory.db']);
    expect(statSync(big).size).toBe(size);
    expect(head(big, store.length).equals(store)).toBe(true);
  });
});
