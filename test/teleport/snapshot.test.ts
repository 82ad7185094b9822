import { createHash } from 'node:crypto';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AgentMemory,
  AgentMemoryError,
  type BackendRecord,
  contentHash,
  createAgentMemory,
  InMemoryBackend,
  type Memory,
  openSnapshot,
  planMerge,
  SNAPSHOT_MANIFEST_KEY,
} from '@agentmem/core';
import { FakeEmbedder } from '@agentmem/core/testing';
import { createSqliteMemory, SqliteBackend, sqliteSnapshotFormat } from '@agentmem/sqlite';
import Database from 'better-sqlite3';
// Skills are not re-exported from @agentmem/core's index yet; the registry is core's own.
import { SkillRegistry } from '../../packages/core/src/skills';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { clock, fullState } from './helpers';

let dir: string;
const open: AgentMemory[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'agentmem-teleport-'));
});
afterEach(async () => {
  for (const m of open.splice(0)) await m.close().catch(() => {});
  rmSync(dir, { recursive: true, force: true });
});

async function sqliteMemory(name: string, options: Partial<Parameters<typeof createSqliteMemory>[0]> = {}) {
  const memory = await createSqliteMemory({
    path: join(dir, name),
    embedder: new FakeEmbedder(),
    ...options,
  });
  open.push(memory);
  return memory;
}

const fileHash = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

async function seeded(name = 'a.db', now = clock(), count = 1100) {
  const a = await sqliteMemory(name, { agentId: 'agent-a', now });
  await a.rememberMany(
    Array.from({ length: count }, (_, i) => ({ content: `Known fact ${i}`, type: 'project' as const })),
  );
  await a.remember({ content: 'User prefers concise answers', type: 'user', id: 'mem_pref' });
  await new SkillRegistry(a).register({
    name: 'docker',
    description: 'Docker practices',
    content: 'Use multi-stage builds.',
  });
  return a;
}

describe('teleport round trip (SQLite files)', () => {
  it('A snapshots, B works in the file, A diffs (writing nothing), merges, and re-merging imports nothing', async () => {
    const now = clock();
    const a = await seeded('a.db', now);
    const snap = await a.snapshot(join(dir, 'handoff.db'));
    expect(snap.manifest).toMatchObject({
      format: 'agentmem-snapshot',
      formatVersion: 1,
      embedder: { id: 'fake:32', dimension: 32 },
      sourceAgentId: 'agent-a',
      sourceBackend: 'sqlite',
      counts: { memories: 1101, skills: 1, history: 1101 },
    });
    expect(snap.manifest.counts.total).toBe(1101 + 1 + 1101);
    expect(snap.summary()).toMatch(/: 1101 memories, 1 skill, 1101 history entries \(\d+ ms\)$/);

    // B opens the snapshot as an ordinary store and adds a finding.
    const b = await sqliteMemory('handoff.db', { agentId: 'agent-b', now: clock(Date.parse('2026-01-05T00:00:00Z')) });
    expect((await b.stats()).total).toBe(1101);
    expect(await new SkillRegistry(b).get('docker')).toMatchObject({ content: 'Use multi-stage builds.' });
    const finding = await b.remember({ content: 'The flaky test is caused by a timezone assumption', type: 'project' });
    await b.close();

    const before = await fullState(a.backend);
    const fileBefore = fileHash(join(dir, 'handoff.db'));
    const diff = await a.diff(join(dir, 'handoff.db'));
    expect(diff.summary()).toBe('New: 1 memory / Duplicates: 1102 / Conflicts: 0');
    expect(diff.toJSON().imports).toEqual([
      expect.objectContaining({ id: finding.id, content: finding.content, agentId: 'agent-b' }),
    ]);
    expect(await fullState(a.backend)).toEqual(before);
    expect(fileHash(join(dir, 'handoff.db'))).toBe(fileBefore);

    now.set('2026-01-06T00:00:00Z');
    const merged = await a.merge(join(dir, 'handoff.db'));
    expect(merged.summary()).toBe('Imported: 1 new memory / Skipped: 1102 duplicates / Conflicts: 0');
    expect(await a.get(finding.id)).toMatchObject({
      agentId: 'agent-b',
      mergedFrom: join(dir, 'handoff.db'),
      mergeId: merged.mergeId,
    });
    expect((await a.recall('flaky timezone test', { k: 1 }))[0]!.memory.id).toBe(finding.id);
    const again = await a.merge(join(dir, 'handoff.db'));
    expect(again.counts.imported).toBe(0);

    now.set('2026-01-07T00:00:00Z');
    const undo = await a.undoMerge(merged.mergeId);
    expect(undo.removed).toBe(1);
    expect(await a.get(finding.id)).toBeUndefined();
    expect((await a.history(finding.id)).map((h) => h.action)).toEqual(['merge_import', 'undo']);
  });

  it('snapshots any backend through the contract (in-memory store into a SQLite file)', async () => {
    const source = await createAgentMemory({
      backend: new InMemoryBackend(),
      embedder: new FakeEmbedder(),
      snapshotFormat: sqliteSnapshotFormat,
      tenant: 'alice',
    });
    await source.remember({ content: 'Alice works in Lisbon', type: 'user' });
    const snap = await source.snapshot(join(dir, 'from-memory.db'));
    expect(snap.manifest.sourceBackend).toBe('memory');
    const reopened = await sqliteMemory('from-memory.db', { tenant: 'alice' });
    expect((await reopened.recall('where does Alice work', { k: 1 }))[0]!.memory.content).toBe('Alice works in Lisbon');
    await expect(source.snapshot(join(dir, 'from-memory.db'))).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });

  it('the SQLite fast path (VACUUM INTO) and the contract copy give the same snapshot', async () => {
    const a = await seeded('a.db', clock(), 50);
    const fast = await a.snapshot(join(dir, 'fast.db'));
    const slow = await a.snapshot(join(dir, 'slow.db'), { viaContract: true });
    expect(fast.manifest.counts).toEqual(slow.manifest.counts);
    const contents = async (name: string) => {
      const backend = await sqliteSnapshotFormat.open(join(dir, name));
      try {
        return await fullState(backend);
      } finally {
        await backend.close();
      }
    };
    expect(await contents('fast.db')).toEqual(await contents('slow.db'));
    await expect(a.snapshot(join(dir, 'a.db'), { overwrite: true })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    expect((await a.stats()).total).toBe(51);
  });

  it('the SQLite key reader and the contract scan give the same plan', async () => {
    const now = clock();
    const a = await seeded('a.db', now, 30);
    await a.snapshot(join(dir, 'h.db'));
    const b = await sqliteMemory('h.db', { now: clock(Date.parse('2026-03-01T00:00:00Z')) });
    await b.remember({ content: 'A new finding', type: 'reference' });
    await b.update('mem_pref', { content: 'User prefers detailed answers' });
    await b.close();
    const opened = await openSnapshot(join(dir, 'h.db'), sqliteSnapshotFormat);
    try {
      const source = {
        backend: opened.backend,
        label: 'h',
        kind: 'snapshot' as const,
        embedder: opened.manifest.embedder,
      };
      const fast = await planMerge(a, source, { keyReader: sqliteSnapshotFormat.readMemoryKeys });
      const slow = await planMerge(a, source);
      const shape = (p: typeof fast) => ({
        imports: p.imports.map((i) => [i.remote.id, i.targetId, i.targetNamespace]),
        duplicates: p.duplicates,
        conflicts: p.conflicts.map((c) => [c.id, c.newer, c.local.hash, c.remote.hash]),
        scanned: p.scanned,
      });
      expect(shape(fast)).toEqual(shape(slow));
      expect(fast.imports).toHaveLength(1);
      expect(fast.conflicts).toHaveLength(1);
    } finally {
      await opened.backend.close();
    }
  });

  it('merges more memories than any page size (key reader pages of 2,000)', async () => {
    const a = await sqliteMemory('big.db', { branch: 'main' });
    const now = new Date('2026-01-01T00:00:00Z').toISOString();
    const memories: Memory[] = Array.from({ length: 2100 }, (_, i) => {
      const content = `Bulk fact ${i}`;
      return {
        specificationVersion: 'v1',
        id: `mem_bulk_${i}`,
        content,
        type: 'project',
        importance: 0.5,
        tags: [],
        namespace: 'project:main',
        tenant: '',
        createdAt: now,
        updatedAt: now,
        lastAccessedAt: now,
        occurredAt: now,
        accessCount: 0,
        contentHash: contentHash(content),
        metadata: {},
      };
    });
    const vectors = await a.embedDocuments(memories.map((m) => m.content));
    await a.writeMemories(
      memories.map((m, i) => ({ memory: m, vector: vectors[i]! })),
      'create',
    );
    await a.snapshot(join(dir, 'big-snap.db'));
    const b = await sqliteMemory('big-snap.db');
    await b.remember({ content: 'One more', type: 'project' });
    await b.close();
    const merged = await a.merge(join(dir, 'big-snap.db'));
    expect(merged.counts).toMatchObject({ imported: 1, duplicates: 2100, conflicts: 0 });
    const fresh = await sqliteMemory('fresh.db');
    const all = await fresh.diff(join(dir, 'big-snap.db'));
    expect(all.newMemories).toBe(2101);
  });

  it('without a snapshot format, snapshot() says how to configure one', async () => {
    const memory = await createAgentMemory({ backend: new InMemoryBackend(), embedder: new FakeEmbedder() });
    await expect(memory.snapshot(join(dir, 'x.db'))).rejects.toThrow(/sqliteSnapshotFormat/);
  });
});

describe('teleport: a snapshot of other tenants', () => {
  it('says that its memories belong to other tenants and how to merge them, instead of "nothing"', async () => {
    const alice = (await sqliteMemory('alice.db')).withScope({ tenant: 'alice' });
    await alice.rememberMany([
      { content: 'Alice deploys on Fridays', type: 'project' },
      { content: 'Alice prefers tabs', type: 'user' },
    ]);
    await alice.snapshot(join(dir, 'alice.agentmem'));
    const mine = await sqliteMemory('mine.db');

    const diff = await mine.diff(join(dir, 'alice.agentmem'));
    expect(diff.newMemories).toBe(0);
    expect(diff.plan.otherTenants).toEqual({ tenant: '', memories: 2, tenants: ['alice'] });
    expect(diff.summary()).toContain(
      'This snapshot has nothing of the default tenant: its 2 memories belong to 1 other tenant ("alice"); merge with allTenants',
    );
    expect(diff.toJSON().otherTenants).toEqual({ tenant: '', memories: 2, tenants: ['alice'] });

    const nothing = await mine.merge(join(dir, 'alice.agentmem'));
    expect(nothing.imported).toBe(0);
    expect(nothing.summary()).toContain('its 2 memories belong to 1 other tenant ("alice")');

    const all = await mine.merge(join(dir, 'alice.agentmem'), { allTenants: true });
    expect(all.imported).toBe(2);
    expect(all.summary()).not.toContain('other tenant');
    expect(await mine.withScope({ tenant: 'alice' }).stats()).toMatchObject({ total: 2 });
  });

  it('names what a tenant-scoped merge leaves out when it merges something', async () => {
    const shared = await sqliteMemory('shared.db');
    await shared.remember({ content: 'Ours: staging runs Kubernetes', type: 'project' });
    await shared.withScope({ tenant: 'bob' }).remember({ content: 'Bob likes dark mode', type: 'user' });
    await shared.snapshot(join(dir, 'shared.agentmem'));
    const mine = await sqliteMemory('mine.db');
    const result = await mine.merge(join(dir, 'shared.agentmem'));
    expect(result.imported).toBe(1);
    expect(result.summary()).toContain('Left out: 1 memory of 1 other tenant ("bob")');
  });
});

describe('teleport: embedder mismatch', () => {
  for (const [localDim, remoteDim] of [
    [32, 16],
    [16, 32],
  ] as const) {
    it(`refuses a ${remoteDim}-dim snapshot in a ${localDim}-dim store unless re-embedding, and never mixes vectors`, async () => {
      const remote = await sqliteMemory('remote.db', {
        embedder: new FakeEmbedder({ id: 'remote-model', dimension: remoteDim }),
      });
      await remote.rememberMany([
        { content: 'The cache is invalidated on deploy', type: 'project' },
        { content: 'Prefers British spelling', type: 'user' },
      ]);
      await remote.snapshot(join(dir, 'remote-snap.db'));
      const local = await sqliteMemory('local.db', {
        embedder: new FakeEmbedder({ id: 'local-model', dimension: localDim }),
      });
      await local.remember({ content: 'Local only', type: 'user' });
      const before = await fullState(local.backend);

      const diff = await local.diff(join(dir, 'remote-snap.db'));
      expect(diff.plan.embedderMismatch).toBe(true);
      const refused = await local.merge(join(dir, 'remote-snap.db')).catch((e: unknown) => e);
      expect(AgentMemoryError.hasCode(refused, 'EMBEDDER_MISMATCH')).toBe(true);
      expect(await fullState(local.backend)).toEqual(before);

      const result = await local.merge(join(dir, 'remote-snap.db'), { reembed: true });
      expect(result.counts).toMatchObject({ imported: 2, reembedded: 2 });
      const hit = (await local.recall('cache invalidated deploy', { k: 1 }))[0]!;
      expect(hit.memory.content).toBe('The cache is invalidated on deploy');
      const [record] = await local.backend.get([hit.memory.id], { tenant: null, withVectors: true });
      expect(record!.vector!.length).toBe(localDim);
    });
  }
});

describe('teleport: bad files change nothing', () => {
  async function expectRefused(path: string, code: string, message: RegExp) {
    const local = await seeded('local.db', clock(), 20);
    const before = await fullState(local.backend);
    const bytes = fileHash(path);
    for (const call of [() => local.diff(path), () => local.merge(path, { strategy: 'remote_wins' })]) {
      const error = await call().catch((e: unknown) => e);
      expect(AgentMemoryError.isInstance(error), String(error)).toBe(true);
      expect((error as AgentMemoryError).code).toBe(code);
      expect((error as Error).message).toMatch(message);
      expect((error as Error).message).toContain(path);
    }
    expect(await fullState(local.backend)).toEqual(before);
    expect(fileHash(path)).toBe(bytes);
  }

  async function goodSnapshot(name = 'good.db') {
    const source = await sqliteMemory('source.db');
    await source.rememberMany(
      Array.from({ length: 100 }, (_, i) => ({ content: `Snapshot fact ${i}`, type: 'project' as const })),
    );
    await source.snapshot(join(dir, name));
    await source.close();
    return join(dir, name);
  }

  it('random bytes', async () => {
    const path = join(dir, 'random.db');
    writeFileSync(path, Buffer.from(Array.from({ length: 8192 }, (_, i) => (i * 7919) % 251)));
    await expectRefused(path, 'NOT_A_SNAPSHOT', /not an agentmem SQLite file|SQLite database agentmem did not write/);
  });

  it('a foreign SQLite database', async () => {
    const path = join(dir, 'foreign.db');
    const db = new Database(path);
    db.exec("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO customers (name) VALUES ('x')");
    db.close();
    await expectRefused(path, 'NOT_A_SNAPSHOT', /not an agentmem SQLite file|SQLite database agentmem did not write/);
  });

  it('an agentmem store that is not a snapshot', async () => {
    const store = await sqliteMemory('plain.db');
    await store.remember({ content: 'Plain store', type: 'user' });
    await store.close();
    await expectRefused(join(dir, 'plain.db'), 'CORRUPT_SNAPSHOT', /no snapshot manifest/);
  });

  it('a truncated snapshot', async () => {
    const path = await goodSnapshot();
    const size = readFileSync(path).length;
    truncateSync(path, Math.floor(size / 2));
    await expectRefused(path, 'CORRUPT_SNAPSHOT', /damage/);
  });

  it('a snapshot missing records its manifest counts', async () => {
    const path = await goodSnapshot();
    const db = new Database(path);
    db.prepare(
      "DELETE FROM records WHERE id IN (SELECT id FROM records WHERE json_extract(attributes, '$.kind') = 'memory' LIMIT 5)",
    ).run();
    db.close();
    await expectRefused(path, 'CORRUPT_SNAPSHOT', /manifest says/);
  });

  it('a snapshot of a newer format version', async () => {
    const path = await goodSnapshot();
    const db = new Database(path);
    const { value } = db.prepare('SELECT value FROM meta WHERE key = ?').get(SNAPSHOT_MANIFEST_KEY) as {
      value: string;
    };
    db.prepare('UPDATE meta SET value = ? WHERE key = ?').run(
      JSON.stringify({ ...JSON.parse(value), formatVersion: 99 }),
      SNAPSHOT_MANIFEST_KEY,
    );
    db.close();
    await expectRefused(path, 'UNSUPPORTED_FORMAT', /format version 99/);
  });

  it('an empty file and an empty SQLite database are not snapshots (not a schema-version puzzle)', async () => {
    const empty = join(dir, 'zero.db');
    writeFileSync(empty, '');
    await expectRefused(empty, 'NOT_A_SNAPSHOT', /the file is empty/);
    const blank = join(dir, 'blank.db');
    const db = new Database(blank);
    db.exec('VACUUM');
    db.close();
    await expectRefused(blank, 'NOT_A_SNAPSHOT', /SQLite database agentmem did not write/);
  });

  it('damaged pages: one line that counts them, not the raw quick_check report', async () => {
    const path = await goodSnapshot();
    const bytes = readFileSync(path);
    const pageSize = bytes.readUInt16BE(16) === 1 ? 65536 : bytes.readUInt16BE(16);
    // Scribble over a few pages in the middle (the header and schema stay readable).
    const pages = Math.floor(bytes.length / pageSize);
    for (let p = Math.floor(pages / 2); p < Math.floor(pages / 2) + 4; p++)
      bytes.fill(0x5a, p * pageSize + 8, (p + 1) * pageSize - 8);
    writeFileSync(path, bytes);
    const local = await sqliteMemory('damaged-local.db');
    const error = (await local.diff(path).catch((e: unknown) => e)) as AgentMemoryError;
    expect(error.code).toBe('CORRUPT_SNAPSHOT');
    expect(error.message).not.toContain('\n');
    expect(error.message).toMatch(/SQLite reports damage: 4 damaged pages \(first: Tree \d+ page \d+/);
    await expectRefused(path, 'CORRUPT_SNAPSHOT', /damage/);
  });

  it('a missing file', async () => {
    const local = await sqliteMemory('l.db');
    await expect(local.diff(join(dir, 'nope.db'))).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});

/** A real SQLite backend whose n-th upsert throws: a failure in the middle of a merge. */
class FailingSqliteBackend extends SqliteBackend {
  upserts = 0;
  failOn = Number.POSITIVE_INFINITY;
  override async upsert(records: readonly BackendRecord[]): Promise<void> {
    if (++this.upserts === this.failOn) throw new Error('injected disk failure');
    return super.upsert(records);
  }
}

describe('teleport: all or nothing on SQLite', () => {
  it('a merge that fails midway leaves the store file exactly as it was', async () => {
    const remote = await sqliteMemory('remote.db');
    await remote.remember({ id: 'mem_same', content: 'Remote wording', type: 'user' });
    await remote.rememberMany(
      Array.from({ length: 1200 }, (_, i) => ({ content: `Remote finding ${i}`, type: 'project' as const })),
    );
    await remote.snapshot(join(dir, 'remote-snap.db'));
    const backend = new FailingSqliteBackend({ path: join(dir, 'local.db') });
    const local = await createAgentMemory({
      backend,
      embedder: new FakeEmbedder(),
      snapshotFormat: sqliteSnapshotFormat,
    });
    open.push(local);
    await local.remember({ id: 'mem_same', content: 'Local wording', type: 'user' });
    const before = await fullState(backend);
    backend.failOn = backend.upserts + 3;
    await expect(local.merge(join(dir, 'remote-snap.db'), { strategy: 'remote_wins' })).rejects.toThrow(
      /injected disk failure/,
    );
    expect(await fullState(backend)).toEqual(before);
    expect(await local.listMerges()).toEqual([]);
    // The failure did not poison the store: the same merge then succeeds.
    backend.failOn = Number.POSITIVE_INFINITY;
    const result = await local.merge(join(dir, 'remote-snap.db'), { strategy: 'remote_wins' });
    expect(result.counts).toMatchObject({ imported: 1200, overwritten: 1 });
    expect((await local.get('mem_same'))!.content).toBe('Remote wording');
  });

  it('a snapshot opened by another agent keeps working after a copy (self-contained single file)', async () => {
    const a = await seeded('a.db', clock(), 20);
    await a.snapshot(join(dir, 's.db'));
    copyFileSync(join(dir, 's.db'), join(dir, 'copy.db'));
    const diff = await a.diff(join(dir, 'copy.db'));
    expect(diff.newMemories + diff.conflicts).toBe(0);
  });
});
