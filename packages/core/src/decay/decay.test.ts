import { describe, expect, it } from 'vitest';
import { AgentMemory, type AgentMemoryOptions } from '../agent-memory';
import { InMemoryBackend } from '../backends';
import { AgentMemoryError } from '../errors';
import { effectiveImportance, pruneInstant } from '../importance';

const HOUR = 3_600_000;
const T0 = Date.parse('2026-01-01T00:00:00Z');

function fresh(options: Partial<AgentMemoryOptions> = {}) {
  const clock = { now: T0 };
  const memory = new AgentMemory({ backend: new InMemoryBackend(), now: () => clock.now, ...options });
  return { memory, clock };
}

async function statusOf(memory: AgentMemory, id: string) {
  const m = await memory.get(id);
  if (!m) return 'gone';
  return m.supersededBy ? 'superseded' : m.prunedAt ? 'pruned' : 'active';
}

describe('effectiveImportance', () => {
  it('halves every half-life and is unchanged at zero elapsed time', () => {
    expect(effectiveImportance(0.8, T0, T0, 168)).toBe(0.8);
    expect(effectiveImportance(0.8, T0, T0 + 168 * HOUR, 168)).toBeCloseTo(0.4, 12);
    expect(effectiveImportance(0.8, T0, T0 + 336 * HOUR, 168)).toBeCloseTo(0.2, 12);
    expect(effectiveImportance(0.8, T0, T0 + 84 * HOUR, 168)).toBeCloseTo(0.8 / Math.SQRT2, 12);
  });

  it('puts the prune instant where the effective importance reaches the threshold', () => {
    const at = pruneInstant(0.8, T0, 168, 0.05); // 0.8 -> 0.05 is four half-lives
    expect(at).toBe(T0 + 4 * 168 * HOUR);
    expect(effectiveImportance(0.8, T0, at, 168)).toBeCloseTo(0.05, 12);
  });
});

describe('applyDecay', () => {
  it('prunes below the threshold, counts decayed and untouched, and never rewrites importance', async () => {
    const { memory, clock } = fresh();
    const old = await memory.remember({ content: 'Old build flag', type: 'project', importance: 0.5 });
    clock.now = T0 + 300 * HOUR;
    const mid = await memory.remember({ content: 'Mid-aged fact', type: 'project', importance: 0.5 });
    clock.now = T0 + 700 * HOUR;
    const fresh_ = await memory.remember({ content: 'Brand new fact', type: 'project', importance: 0.5 });
    // At 700 h: old is 0.5 * 2^(-700/168) = 0.028 (< 0.05), mid 0.5 * 2^(-400/168) = 0.096, fresh 0.5.
    const report = await memory.applyDecay();
    expect(report).toMatchObject({ scanned: 3, pruned: 1, decayed: 1, untouched: 1, dryRun: false, threshold: 0.05 });
    expect(report.now).toBe(new Date(T0 + 700 * HOUR).toISOString());
    expect(await statusOf(memory, old.id)).toBe('pruned');
    expect(await statusOf(memory, mid.id)).toBe('active');
    expect((await memory.get(mid.id))!.importance).toBe(0.5);
    expect((await memory.get(fresh_.id))!.importance).toBe(0.5);
    // prunedAt is when it crossed the threshold (0.5 -> 0.05: log2(10) half-lives), not when the job ran.
    expect((await memory.get(old.id))!.prunedAt).toBe(
      new Date(Math.floor(T0 + 168 * Math.log2(10) * HOUR)).toISOString(),
    );
    const history = await memory.history(old.id);
    expect(history.map((h) => h.action)).toEqual(['create', 'prune']);
  });

  it('takes pruned memories out of recall, unless asked for', async () => {
    const { memory, clock } = fresh();
    const m = await memory.remember({ content: 'The staging cluster is called kestrel', type: 'project' });
    clock.now = T0 + 1000 * HOUR;
    await memory.applyDecay();
    expect(await memory.recall('staging cluster kestrel')).toEqual([]);
    const withPruned = await memory.recall('staging cluster kestrel', { includePruned: true });
    expect(withPruned.map((r) => r.memory.id)).toEqual([m.id]);
  });

  it('honours a half-life per memory type', async () => {
    const { memory, clock } = fresh({ halfLifeHours: { user: 24 * 365, project: 24 } });
    const user = await memory.remember({ content: 'Prefers concise answers', type: 'user', importance: 0.5 });
    const project = await memory.remember({
      content: 'Current sprint goal is billing',
      type: 'project',
      importance: 0.5,
    });
    const feedback = await memory.remember({ content: 'Do not add emojis', type: 'feedback', importance: 0.5 });
    clock.now = T0 + 14 * 24 * HOUR; // two weeks: 14 project half-lives, 2 default (168 h) ones for feedback
    const report = await memory.applyDecay();
    expect(report).toMatchObject({ scanned: 3, pruned: 1, decayed: 2 });
    expect(await statusOf(memory, project.id)).toBe('pruned');
    expect(await statusOf(memory, user.id)).toBe('active');
    expect(await statusOf(memory, feedback.id)).toBe('active');
  });

  it('never decays a type whose half-life is Infinity', async () => {
    const { memory, clock } = fresh({ halfLifeHours: { user: Number.POSITIVE_INFINITY } });
    const user = await memory.remember({ content: 'Name is Ada', type: 'user', importance: 0.01 });
    clock.now = T0 + 10_000 * HOUR;
    expect(await memory.applyDecay()).toMatchObject({ scanned: 1, pruned: 0, untouched: 1 });
    expect(await statusOf(memory, user.id)).toBe('active');
  });

  it('uses a configured prune threshold', async () => {
    const { memory, clock } = fresh({ pruneThreshold: 0.3 });
    const m = await memory.remember({ content: 'Prefers tabs', type: 'user', importance: 0.5 });
    clock.now = T0 + 168 * HOUR; // 0.25 < 0.3
    expect(await memory.applyDecay()).toMatchObject({ pruned: 1 });
    expect(await statusOf(memory, m.id)).toBe('pruned');
  });

  it('writes nothing in a dry run but reports the same numbers', async () => {
    const { memory } = fresh();
    const a = await memory.remember({ content: 'First fact', type: 'project' });
    await memory.remember({ content: 'Second fact', type: 'user' });
    const backend = memory.backend as InMemoryBackend;
    const before = await backend.scan({ filter: { tenant: null }, limit: 100 });
    const later = T0 + 2000 * HOUR;
    const dry = await memory.applyDecay({ now: new Date(later), dryRun: true });
    expect(dry).toMatchObject({ scanned: 2, pruned: 2, dryRun: true });
    expect(await backend.scan({ filter: { tenant: null }, limit: 100 })).toEqual(before);
    expect(await memory.history(a.id)).toHaveLength(1);
    const real = await memory.applyDecay({ now: later });
    expect(real).toMatchObject({ scanned: 2, pruned: 2, dryRun: false });
  });

  it('covers every tenant, branch and namespace', async () => {
    const { memory, clock } = fresh();
    const ids = [
      (await memory.remember({ content: 'Global fact', type: 'user' })).id,
      (await memory.withScope({ tenant: 'alice' }).remember({ content: 'Alice fact', type: 'user' })).id,
      (await memory.withScope({ branch: 'feature/x' }).remember({ content: 'Branch fact', type: 'project' })).id,
      (await memory.remember({ content: 'Team fact', type: 'reference', namespace: 'team:core' })).id,
    ];
    clock.now = T0 + 5000 * HOUR;
    expect(await memory.applyDecay()).toMatchObject({ scanned: 4, pruned: 4 });
    const all = [];
    for await (const m of memory.memories({ includeInactive: true, allTenants: true })) all.push(m);
    expect(
      all
        .filter((m) => m.prunedAt)
        .map((m) => m.id)
        .sort(),
    ).toEqual([...ids].sort());
  });

  it('pages through more memories than one batch', async () => {
    const { memory, clock } = fresh();
    await memory.rememberMany(
      Array.from({ length: 1100 }, (_, i) => ({ content: `fact number ${i}`, type: 'project' as const })),
    );
    clock.now = T0 + 5000 * HOUR;
    expect(await memory.applyDecay()).toMatchObject({ scanned: 1100, pruned: 1100 });
    expect(await memory.applyDecay()).toMatchObject({ scanned: 0, pruned: 0 });
  });

  it('reports progress of the scan and of the writes', async () => {
    const { memory, clock } = fresh();
    await memory.rememberMany(
      Array.from({ length: 1500 }, (_, i) => ({ content: `note ${i}`, type: 'user' as const })),
    );
    await memory.remember({ content: 'important', type: 'user', importance: 1 });
    clock.now = T0 + 600 * HOUR; // 0.5 is pruned after 558 h, 1.0 after 726 h
    const seen: { phase: string; done: number; total: number }[] = [];
    await memory.applyDecay({ onProgress: (p) => seen.push(p) });
    expect(seen.filter((p) => p.phase === 'scan').at(-1)).toEqual({ phase: 'scan', done: 1501, total: 1501 });
    // After each page's prunes (pages of 1,000): pruned so far, found as the scan goes.
    const prunes = seen.filter((p) => p.phase === 'prune');
    expect(prunes.map((p) => p.done)).toEqual([...prunes.map((p) => p.done)].sort((a, b) => a - b));
    expect(prunes.length).toBe(2);
    expect(prunes.every((p) => p.done === p.total)).toBe(true);
    expect(prunes.at(-1)).toEqual({ phase: 'prune', done: 1500, total: 1500 });
  });

  it('skips superseded memories', async () => {
    const { memory, clock } = fresh();
    const a = await memory.remember({ content: 'The database is PostgreSQL 14', type: 'project' });
    const b = await memory.remember({ content: 'The database is PostgreSQL 16', type: 'project' });
    await memory.patchMemories([{ ...a, supersededBy: b.id }], 'supersede');
    clock.now = T0 + 5000 * HOUR;
    expect(await memory.applyDecay()).toMatchObject({ scanned: 1, pruned: 1 });
    expect(await statusOf(memory, a.id)).toBe('superseded');
  });

  it('rejects bad input and changes nothing', async () => {
    const { memory } = fresh();
    await memory.remember({ content: 'A fact', type: 'user' });
    const isInvalid = (e: unknown) => AgentMemoryError.hasCode(e, 'INVALID_INPUT');
    await expect(memory.applyDecay({ now: 'next tuesday' })).rejects.toSatisfy(isInvalid);
    await expect(fresh({ pruneThreshold: 1.5 }).memory.applyDecay()).rejects.toSatisfy(isInvalid);
    await expect(fresh({ halfLifeHours: { project: 0 } }).memory.applyDecay()).rejects.toThrow(/halfLifeHours.project/);
    expect((await memory.stats()).total).toBe(1);
  });
});

/** Runs `before` once, just before the next `get` (the re-read of a decay or compact batch): another writer. */
class InterleavingBackend extends InMemoryBackend {
  before: (() => Promise<unknown>) | undefined;
  override async get(...args: Parameters<InMemoryBackend['get']>) {
    const before = this.before;
    this.before = undefined;
    await before?.();
    return super.get(...args);
  }
}

describe('another writer during a run', () => {
  it('a recall between the scan and the write keeps that memory', async () => {
    const backend = new InterleavingBackend();
    const { memory, clock } = fresh({ backend });
    const recalled = await memory.remember({ content: 'The build cache lives in S3', type: 'project' });
    const other = await memory.remember({ content: 'Lunch is at noon', type: 'user' });
    clock.now = T0 + 1000 * HOUR;
    backend.before = () => memory.recall('build cache S3', { types: ['project'] });
    const report = await memory.applyDecay();
    expect(report).toMatchObject({ scanned: 2, pruned: 1, untouched: 1 });
    expect(await statusOf(memory, recalled.id)).toBe('active');
    expect(await statusOf(memory, other.id)).toBe('pruned');
  });

  it('a dry run counts the recalls this process has not written yet, as the run does', async () => {
    // Accesses are written on an interval: a long one keeps this recall buffered through both runs.
    const { memory, clock } = fresh({ reinforcement: { flushIntervalMs: 60_000 } } as Partial<AgentMemoryOptions>);
    const recalled = await memory.remember({ content: 'The build cache lives in S3', type: 'project' });
    await memory.remember({ content: 'Lunch is at noon', type: 'user' });
    clock.now = T0 + 1000 * HOUR;
    await memory.recall('build cache S3', { types: ['project'] });
    const dry = await memory.applyDecay({ dryRun: true });
    expect(dry).toMatchObject({ scanned: 2, pruned: 1, untouched: 1 });
    expect({ ...(await memory.applyDecay()), durationMs: 0, dryRun: true }).toEqual({ ...dry, durationMs: 0 });
    expect(await statusOf(memory, recalled.id)).toBe('active');
    await memory.close();
  });

  it('a restore between the scan and the delete keeps that memory', async () => {
    const backend = new InterleavingBackend();
    const { memory, clock } = fresh({ backend });
    const a = await memory.remember({ content: 'Fact A', type: 'project' });
    const b = await memory.remember({ content: 'Fact B', type: 'project' });
    clock.now = T0 + 1000 * HOUR;
    await memory.applyDecay();
    backend.before = () => memory.restore(a.id);
    expect(await memory.compact()).toMatchObject({ removed: 1 });
    expect(await statusOf(memory, a.id)).toBe('active');
    expect(await statusOf(memory, b.id)).toBe('gone');
  });
});

describe('restore and compact', () => {
  it('restores a pruned memory into recall and restarts its clock', async () => {
    const { memory, clock } = fresh();
    const m = await memory.remember({ content: 'The release train leaves on Thursdays', type: 'project' });
    clock.now = T0 + 1000 * HOUR;
    await memory.applyDecay();
    clock.now += 1000;
    const restored = await memory.restore(m.id);
    expect(restored.prunedAt).toBeUndefined();
    expect(restored.lastAccessedAt).toBe(new Date(clock.now).toISOString());
    expect((await memory.recall('release train Thursdays')).map((r) => r.memory.id)).toEqual([m.id]);
    // A decay run right after does not prune it again.
    expect(await memory.applyDecay()).toMatchObject({ pruned: 0 });
    expect((await memory.history(m.id)).map((h) => h.action)).toEqual(['create', 'prune', 'restore']);
  });

  it('returns an active memory unchanged and reports an unknown id', async () => {
    const { memory } = fresh();
    const m = await memory.remember({ content: 'Active fact', type: 'user' });
    expect(await memory.restore(m.id)).toEqual(m);
    expect(await memory.history(m.id)).toHaveLength(1);
    await expect(memory.restore('mem_missing')).rejects.toSatisfy((e) => AgentMemoryError.hasCode(e, 'NOT_FOUND'));
  });

  it('compacts pruned memories for good, keeps superseded ones and all history', async () => {
    const { memory, clock } = fresh();
    const pruned = await memory.remember({ content: 'Forgotten detail', type: 'project', importance: 0.1 });
    clock.now = T0 + 200 * HOUR;
    const old = await memory.remember({ content: 'CI runs on Jenkins', type: 'project' });
    const now = await memory.remember({ content: 'CI runs on GitHub Actions', type: 'project' });
    await memory.patchMemories([{ ...old, supersededBy: now.id }], 'supersede');
    await memory.applyDecay();
    expect(await statusOf(memory, pruned.id)).toBe('pruned');
    clock.now += 1000;

    expect(await memory.compact({ dryRun: true })).toMatchObject({ removed: 1, dryRun: true });
    expect(await statusOf(memory, pruned.id)).toBe('pruned');
    expect(await memory.compact()).toMatchObject({ removed: 1, dryRun: false });
    expect(await statusOf(memory, pruned.id)).toBe('gone');
    expect(await statusOf(memory, old.id)).toBe('superseded');
    expect((await memory.history(pruned.id)).map((h) => h.action)).toEqual(['create', 'prune', 'compact']);
    await expect(memory.restore(pruned.id)).rejects.toThrow(/compacted or forgotten/);
    expect(await memory.compact()).toMatchObject({ removed: 0 });
  });
});
