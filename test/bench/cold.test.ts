/**
 * `npm run bench -- cold`: each run's copy of the store is flushed to the disk before the writer and the
 * fresh process open it (a user's store is not a file just written), and the 100k verdict says how many
 * fresh processes met the 10x goal, not only the medians' ratio.
 */
import * as fs from 'node:fs';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

vi.mock('node:fs', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs')>();
  return { ...actual, fsyncSync: vi.fn(actual.fsyncSync) };
});

const { coldVerdict, flush, flushedCopy } = await import('../../bench/cold');

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'agentmem-cold-bench-test-'));
});
afterEach(() => {
  vi.mocked(fs.fsyncSync).mockClear();
  rmSync(dir, { recursive: true, force: true });
});

describe('flushedCopy', () => {
  it('copies the file, removes the old copy’s -wal and -shm, and fsyncs the copy', () => {
    const from = join(dir, 'store.db');
    const to = join(dir, 'store.db.writes.db');
    writeFileSync(from, 'the store');
    writeFileSync(to, 'an older copy');
    writeFileSync(`${to}-wal`, 'its log');
    writeFileSync(`${to}-shm`, 'its index');
    const ms = flushedCopy(from, to);
    expect(readFileSync(to, 'utf8')).toBe('the store');
    expect(fs.existsSync(`${to}-wal`)).toBe(false);
    expect(fs.existsSync(`${to}-shm`)).toBe(false);
    expect(ms).toBeGreaterThanOrEqual(0);
    expect(fs.fsyncSync).toHaveBeenCalledTimes(1);
  });
});

describe('flush', () => {
  it('fsyncs the file as it is (what a writer left in it)', () => {
    const file = join(dir, 'store.db');
    writeFileSync(file, 'written by the writer');
    expect(flush(file)).toBeGreaterThanOrEqual(0);
    expect(readFileSync(file, 'utf8')).toBe('written by the writer');
    expect(fs.fsyncSync).toHaveBeenCalledTimes(1);
  });
});

describe('coldVerdict', () => {
  const child = (cold: number, warm: number, coldCpu: number, warmCpu: number) => ({
    openMs: 2,
    firstMs: cold - 2,
    warmP50: warm,
    coldCpuMs: coldCpu,
    warmCpuP50: warmCpu,
  });

  it('at 100k counts the fresh processes within 10x, in wall and in CPU time', () => {
    const line = coldVerdict(100_000, [child(40, 5, 40, 5), child(60, 5, 44, 4), child(45, 5, 45, 5)], 9, 9);
    expect(line).toContain('goal <= 10x: met');
    expect(line).toContain('each process: 8.0–12.0x wall, 8.0–11.0x CPU, 2 and 2 of 3 <= 10x');
    expect(line).toContain('in every process: NOT met');
    expect(coldVerdict(100_000, [child(40, 5, 40, 5), child(45, 5, 45, 5)], 8.5, 8.5)).toContain(
      'in every process: met',
    );
  });

  it('at 1M counts the runs within 300 ms of wall time', () => {
    const line = coldVerdict(1_000_000, [child(150, 30, 140, 25), child(320, 30, 150, 25)], 0, 0);
    expect(line).toBe(
      'open + first recall = 150–320 ms wall (CPU 140–150 ms), 1 of 2 runs <= 300 ms (goal <= 300 ms in every run: NOT met)',
    );
  });
});
