import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentMemoryError } from '@agentmem/core';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { SqliteBackend } from '../backend';

// What better-sqlite3 throws on its first `new Database` when its install script never ran
// (pnpm 10's default, --ignore-scripts): its lazy `bindings` lookup finds no better_sqlite3.node.
vi.mock('better-sqlite3', () => {
  class SqliteError extends Error {
    code = 'SQLITE_ERROR';
  }
  function Database(): never {
    throw new Error(
      'Could not locate the bindings file. Tried:\n → /app/node_modules/better-sqlite3/build/better_sqlite3.node\n → /app/node_modules/better-sqlite3/build/Debug/better_sqlite3.node',
    );
  }
  Database.SqliteError = SqliteError;
  return { default: Database };
});

const dir = mkdtempSync(join(tmpdir(), 'agentmem-sqlite-nobuild-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('without better-sqlite3 native build', () => {
  it('fails with MISSING_DEPENDENCY naming the rebuild for npm and pnpm, and creates nothing', () => {
    const path = join(dir, '.agentmem', 'memory.db');
    let caught: unknown;
    try {
      new SqliteBackend({ path });
    } catch (error) {
      caught = error;
    }
    expect(AgentMemoryError.hasCode(caught, 'MISSING_DEPENDENCY')).toBe(true);
    const message = (caught as Error).message;
    expect(message).toMatch(/npm rebuild better-sqlite3/);
    expect(message).toMatch(/onlyBuiltDependencies/);
    expect(message).toMatch(/approve-builds/);
    expect(message).toMatch(/allowScripts/);
    expect(message.split('\n')).toHaveLength(1); // one line, not the 15 paths bindings tried
    expect(readdirSync(dir)).toEqual([]);
  });

  it('fails the same way on an in-memory store', () => {
    expect(() => new SqliteBackend({ path: ':memory:' })).toThrow(/npm rebuild better-sqlite3/);
  });
});
