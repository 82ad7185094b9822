import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentMemoryError } from '@agentmem/core';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { SqliteBackend } from '../backend';

// What a machine without the platform's sqlite-vec binary sees when the extension loads.
vi.mock('sqlite-vec', () => ({
  load: () => {
    throw new Error('Loadable extension for sqlite-vec not found. Was the sqlite-vec-linux-x64 package installed?');
  },
}));

const dir = mkdtempSync(join(tmpdir(), 'agentmem-sqlite-noext-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('without the sqlite-vec extension', () => {
  it('fails with MISSING_DEPENDENCY saying what to install, and creates nothing', () => {
    const path = join(dir, '.agentmem', 'memory.db');
    let caught: unknown;
    try {
      new SqliteBackend({ path });
    } catch (error) {
      caught = error;
    }
    expect(AgentMemoryError.hasCode(caught, 'MISSING_DEPENDENCY')).toBe(true);
    expect((caught as Error).message).toMatch(/npm install sqlite-vec/);
    expect(readdirSync(dir)).toEqual([]); // not even the parent directory
  });
});
