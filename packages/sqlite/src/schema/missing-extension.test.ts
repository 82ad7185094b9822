import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MemoryStore } from '@agentmem/core';
import { SemanticTestEmbedder } from '@agentmem/core/testing';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { SqliteBackend } from '../backend';

// sqlite-vec's platform package: first not installed (its file absent, and sqlite-vec's own lookup
// failing as it does then), then installed but not loadable (a binary built for another libc).
const platform = vi.hoisted(() => ({ installed: false }));

vi.mock('sqlite-vec', () => ({
  getLoadablePath: () => {
    if (!platform.installed) {
      throw new Error(
        "Cannot find package 'sqlite-vec-linux-x64' imported from /app/node_modules/sqlite-vec/index.mjs",
      );
    }
    return '/app/node_modules/sqlite-vec-linux-x64/vec0.so';
  },
  load: () => {
    throw new Error('/app/node_modules/sqlite-vec-linux-x64/vec0.so: cannot open shared object file');
  },
}));

vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const existsSync = (path: import('node:fs').PathLike) =>
    /sqlite-vec-[a-z]+-[a-z0-9]+/.test(String(path)) ? platform.installed : fs.existsSync(path);
  return { ...fs, existsSync, default: { ...fs, existsSync } };
});

const dir = mkdtempSync(join(tmpdir(), 'agentmem-sqlite-noext-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const fixtures = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');

const missing = expect.objectContaining({
  code: 'MISSING_DEPENDENCY',
  message: expect.stringMatching(/npm install sqlite-vec/),
});

// In this order: an open that finds the platform package remembers it for the process.
describe('without the sqlite-vec extension', () => {
  it('fails with MISSING_DEPENDENCY saying what to install, and creates nothing', () => {
    const path = join(dir, '.agentmem', 'memory.db');
    expect(() => new SqliteBackend({ path })).toThrow(missing);
    expect(readdirSync(dir)).toEqual([]); // not even the parent directory
  });

  it('fails the same way on a file that exists, and leaves it as it was (no -wal or -shm beside it)', () => {
    const sub = join(dir, 'existing');
    mkdirSync(sub);
    const path = join(sub, 'memory.db');
    const db = new Database(path);
    db.pragma('journal_mode = WAL');
    db.exec('CREATE TABLE t (x)');
    db.close();
    const before = readFileSync(path);
    expect(() => new SqliteBackend({ path })).toThrow(missing);
    expect(readdirSync(sub)).toEqual(['memory.db']);
    expect(readFileSync(path).equals(before)).toBe(true);
  });
});

describe('with an extension that is installed but does not load', () => {
  it('opens and recalls by approximate dense search, which needs no extension; an exact search fails with MISSING_DEPENDENCY', async () => {
    platform.installed = true;
    const path = join(dir, 'installed', 'memory.db');
    const embedder = new SemanticTestEmbedder();
    const store = await MemoryStore.open({ backend: new SqliteBackend({ path }), embedder });
    // Past 1,200 vectors (twice the approximate pool at k 10): fewer are searched exactly.
    const filler = Array.from({ length: 1300 }, (_, i) => ({
      content: `note ${i} about the weekly sync`,
      type: 'project' as const,
    }));
    await store.rememberMany([{ content: 'The staging database is PostgreSQL 16', type: 'project' }, ...filler]);
    const hits = await store.recall('which database runs on staging?', { k: 1, mode: 'dense', reinforce: false });
    expect(hits[0]?.memory.content).toBe('The staging database is PostgreSQL 16');
    await store.close();

    const exact = await MemoryStore.open({ backend: new SqliteBackend({ path, denseSearch: 'exact' }), embedder });
    try {
      await expect(exact.recall('staging database', { mode: 'dense', reinforce: false })).rejects.toThrow(missing);
    } finally {
      await exact.close();
    }
  });

  it('refuses to upgrade a file written before schema 13 (its vec0 table), and leaves it as it was', () => {
    platform.installed = true;
    const sub = join(dir, 'old');
    mkdirSync(sub);
    const path = join(sub, 'memory.db');
    copyFileSync(join(fixtures, 'semantic.v12.db'), path);
    const before = readFileSync(path);
    expect(() => new SqliteBackend({ path })).toThrow(missing);
    expect(readdirSync(sub)).toEqual(['memory.db']);
    expect(readFileSync(path).equals(before)).toBe(true);
  });
});
