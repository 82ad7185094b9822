/**
 * A snapshot another agent worked in is a WAL-mode file: a merge reads it in place without locks
 * (SQLite's `immutable`), where other read-only opens read such a file into memory. Both give the
 * same records; the file is left as it was; a file with a live writer, or a process without URI
 * filenames, takes the earlier paths; a file written to during a merge is refused.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  accessSync,
  chmodSync,
  constants,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AgentMemoryError, type BackendRecord, type MemoryBackend } from '@agentmem/core';
import { FakeEmbedder } from '@agentmem/core/testing';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteBackend } from '../backend';
import { createSqliteMemory } from '../memory';
import { sqliteSnapshotFormat } from './sqlite-snapshot-format';

const repoRoot = fileURLToPath(new URL('../../../..', import.meta.url));
const reader = fileURLToPath(new URL('../test-fixtures/snapshot-reader.ts', import.meta.url));

/** Opens a snapshot as a merge does, in a child process; prints its connection's name and record count. */
function readInChild(path: string, options: { env?: NodeJS.ProcessEnv; uid?: number; gid?: number } = {}) {
  const { env, ...identity } = options;
  const child = spawnSync(process.execPath, ['--import', 'tsx', reader, path], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    encoding: 'utf8',
    ...identity,
  });
  expect(child.status, child.stderr).toBe(0);
  return JSON.parse(child.stdout) as { name: string; records: number };
}

/**
 * Root ignores file modes: as root, the read of a snapshot in a read-only directory runs as user
 * nobody (uid/gid 65534), for whom the mode holds; skipped when nobody cannot run it from this checkout.
 */
const NOBODY = 65534;
const asRoot = process.getuid?.() === 0;
const nobodyCanRead =
  asRoot &&
  spawnSync(process.execPath, ['--import', 'tsx', '-e', ''], {
    cwd: repoRoot,
    uid: NOBODY,
    gid: NOBODY,
    timeout: 60_000,
  }).status === 0;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'agentmem-read-in-place-'));
});
afterEach(() => {
  chmodSync(dir, 0o755);
  for (const d of readdirSync(dir)) chmodSync(join(dir, d), 0o755);
  rmSync(dir, { recursive: true, force: true });
});

const fingerprint = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');
const embedder = () => new FakeEmbedder();

/** A store and its snapshot, which another agent opened and wrote to (so the file is in WAL mode). */
async function handoff(at = dir) {
  const local = await createSqliteMemory({ path: join(at, 'local.db'), embedder: embedder(), agentId: 'a' });
  await local.rememberMany(Array.from({ length: 40 }, (_, i) => ({ content: `Fact ${i}`, type: 'project' as const })));
  const path = join(at, 'handoff.agentmem');
  await local.snapshot(path);
  const other = await createSqliteMemory({ path, embedder: embedder(), agentId: 'b' });
  await other.remember({ content: 'Found by agent B', type: 'project' });
  await other.close();
  expect(readFileSync(path)[18]).toBe(2); // WAL mode
  expect(existsSync(`${path}-wal`)).toBe(false);
  return { local, path };
}

async function allRecords(backend: MemoryBackend): Promise<BackendRecord[]> {
  const out: BackendRecord[] = [];
  let cursor: string | undefined;
  do {
    const page = await backend.scan({ filter: { tenant: null }, cursor, limit: 100, withVectors: true });
    out.push(...page.records);
    cursor = page.cursor;
  } while (cursor !== undefined);
  return out;
}

const nameOf = (backend: MemoryBackend) => (backend as SqliteBackend).database.name;

describe('a merge reads a WAL-mode snapshot in place', () => {
  it('without copying it or leaving a file beside it, and reads the records a copy reads', async () => {
    const { local, path } = await handoff();
    const before = fingerprint(path);
    const inPlace = await sqliteSnapshotFormat.open(path);
    expect(nameOf(inPlace)).toMatch(/^file:.*\?immutable=1$/);
    const copy = new SqliteBackend({ path, readonly: true }); // any other read-only open: a copy in memory
    expect(nameOf(copy)).toBe(':memory:');
    const [a, b] = [await allRecords(inPlace), await allRecords(copy)];
    expect(a.length).toBe(41 + 40); // memories and their history (rememberMany leaves create entries implied)
    expect(a).toEqual(b);
    expect(sqliteSnapshotFormat.changedSinceOpen?.(inPlace)).toBe(false);
    await inPlace.close();
    await copy.close();
    expect((await local.diff(path)).newMemories).toBe(1);
    expect(readdirSync(dir).sort()).toEqual(['handoff.agentmem', 'local.db', 'local.db-shm', 'local.db-wal']);
    expect(fingerprint(path)).toBe(before);
    await local.close();
  });

  it.skipIf(asRoot && !nobodyCanRead)(
    asRoot && !nobodyCanRead
      ? `in a directory its reader may not write to (skipped: running as root, which ignores file modes, and user nobody, uid ${NOBODY}, cannot run node from ${repoRoot})`
      : 'in a directory its reader may not write to',
    async () => {
      const ro = join(dir, 'ro');
      mkdirSync(ro);
      const { local, path } = await handoff(ro);
      await local.close();
      for (const f of readdirSync(ro).filter((f) => f.startsWith('local.db'))) rmSync(join(ro, f));
      chmodSync(ro, 0o555);
      if (asRoot) {
        chmodSync(dir, 0o755); // mkdtemp's 0700 would keep nobody out of the whole folder
        const user = { uid: NOBODY, gid: NOBODY };
        const probe = `try { require('node:fs').accessSync(${JSON.stringify(ro)}, 2); process.exit(1) } catch { process.exit(0) }`;
        expect(spawnSync(process.execPath, ['-e', probe], user).status, 'nobody must not write to the folder').toBe(0);
        const read = readInChild(path, user);
        expect(read.name).toMatch(/^file:/);
        expect(read.records).toBe(81);
      } else {
        expect(() => accessSync(ro, constants.W_OK)).toThrow();
        const backend = await sqliteSnapshotFormat.open(path);
        expect(nameOf(backend)).toMatch(/^file:/);
        expect(await backend.count({ tenant: null })).toBe(81);
        await backend.close();
      }
      expect(readdirSync(ro)).toEqual(['handoff.agentmem']);
    },
    60_000,
  );

  it('reads through the -wal of a store that has the file open, as before', async () => {
    const { local, path } = await handoff();
    const other = await createSqliteMemory({ path, embedder: embedder(), agentId: 'b' });
    await other.remember({ content: 'Written while the merge reads', type: 'project' });
    expect(existsSync(`${path}-wal`)).toBe(true);
    const backend = await sqliteSnapshotFormat.open(path);
    expect(nameOf(backend)).toBe(path);
    expect(sqliteSnapshotFormat.changedSinceOpen?.(backend)).toBe(false);
    await backend.close();
    expect((await local.diff(path)).newMemories).toBe(2); // the open writer's commit is seen
    await other.close();
    await local.close();
  });

  it('reads a copy, as before, where SQLite takes no URI filenames (SQLITE_USE_URI=0)', async () => {
    const { local, path } = await handoff();
    await local.close();
    expect(readInChild(path, { env: { SQLITE_USE_URI: '0' } })).toEqual({ name: ':memory:', records: 81 });
    expect(readInChild(path, { env: { SQLITE_USE_URI: undefined } }).name).toMatch(/^file:/);
  }, 60_000);
});

describe('a snapshot written to while it is merged', () => {
  it('is seen as changed, and the merge is refused with CONFLICT and writes nothing', async () => {
    const { local, path } = await handoff();
    const backend = await sqliteSnapshotFormat.open(path);
    let writes = 0;
    const writeAndClose = () => {
      const db = new Database(path);
      db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('touched', ?)").run(String(++writes));
      db.close(); // the last connection checkpoints into the file (a write of the same bytes changes nothing)
    };
    writeAndClose();
    expect(sqliteSnapshotFormat.changedSinceOpen?.(backend)).toBe(true);
    await backend.close();

    const before = await local.stats();
    let caught: unknown;
    try {
      await local.merge(path, { onProgress: (p) => p.phase === 'apply' && writeAndClose() });
    } catch (error) {
      caught = error;
    }
    expect(AgentMemoryError.hasCode(caught, 'CONFLICT'), String(caught)).toBe(true);
    expect((caught as Error).message).toContain(path);
    expect(await local.stats()).toEqual(before);
    expect(await local.listMerges()).toEqual([]);
    await local.close();
  });
});
