import { describe, expect, it } from 'vitest';
import { AgentMemory, type AgentMemoryOptions } from '../agent-memory';
import { InMemoryBackend } from '../backends';
import { cosineSimilarity, HashingEmbedder } from '../embedding';
import type { Embedder } from '../contracts';
import { AgentMemoryError } from '../errors';
import { FakeEmbedder } from '../testing';

const T0 = Date.parse('2026-03-01T00:00:00Z');

function fresh(options: Partial<AgentMemoryOptions> = {}) {
  const clock = { now: T0 };
  const memory = new AgentMemory({ backend: new InMemoryBackend(), now: () => clock.now++, ...options });
  return { memory, clock };
}

const PG14 = 'The database is PostgreSQL 14';
const PG16 = 'The database is PostgreSQL 16';

describe('rememberWithConflictCheck (default embedder)', () => {
  it('supersedes PostgreSQL 14 with 16: one conflict, recall returns only the new fact', async () => {
    const { memory } = fresh();
    const first = await memory.rememberWithConflictCheck({ content: PG14, type: 'project' });
    expect(first).toMatchObject({ stored: true, duplicate: false, conflicts: [] });
    const second = await memory.rememberWithConflictCheck({ content: PG16, type: 'project' });
    expect(second.stored).toBe(true);
    expect(second.resolution).toBe('supersede');
    expect(second.conflicts).toHaveLength(1);
    expect(second.conflicts[0]!.memory.id).toBe(first.memory!.id);
    expect(second.conflicts[0]!.similarity).toBeGreaterThanOrEqual(new HashingEmbedder().conflictThreshold);
    expect(second.superseded).toEqual([first.memory!.id]);

    const recalled = await memory.recall('Which database version do we use?');
    expect(recalled.map((r) => r.memory.content)).toEqual([PG16]);
    const old = (await memory.get(first.memory!.id))!;
    expect(old.supersededBy).toBe(second.memory!.id);
    // Out of recall, but in history and in recall when asked for.
    expect((await memory.history(old.id)).map((h) => h.action)).toEqual(['create', 'supersede']);
    const all = await memory.recall('Which database version do we use?', { includeSuperseded: true });
    expect(all.map((r) => r.memory.content).sort()).toEqual([PG14, PG16]);
  });

  it('compares memories as documents, also with an embedder that embeds queries differently', async () => {
    // Like Cohere or E5: a query is embedded with an instruction, a document as it is.
    const inner = new HashingEmbedder();
    const asymmetric: Embedder = {
      specificationVersion: 'v1',
      id: 'asymmetric',
      dimension: inner.dimension,
      conflictThreshold: inner.conflictThreshold,
      embed: (texts, options) =>
        inner.embed(
          options.purpose === 'query' ? texts.map((t) => `represent this question to find relevant passages: ${t}`) : texts,
          options,
        ),
    };
    const { memory } = fresh({ embedder: asymmetric });
    const first = await memory.rememberWithConflictCheck({ content: PG14, type: 'project' });
    const second = await memory.rememberWithConflictCheck({ content: PG16, type: 'project' });
    expect(second.conflicts.map((c) => c.memory.id)).toEqual([first.memory!.id]);
    const documents = (await inner.embed([PG14, PG16], { purpose: 'document' })).embeddings;
    expect(second.conflicts[0]!.similarity).toBeCloseTo(cosineSimilarity(documents[0]!, documents[1]!), 5);
  });

  it('does not treat unrelated or merely related facts as conflicts', async () => {
    const { memory } = fresh();
    await memory.rememberWithConflictCheck({ content: PG16, type: 'project' });
    for (const content of ['The user prefers dark mode', 'The API port is 8080', 'The database backups run nightly']) {
      const result = await memory.rememberWithConflictCheck({ content, type: 'project' });
      expect(result, content).toMatchObject({ stored: true, conflicts: [] });
    }
    expect((await memory.stats()).total).toBe(4);
  });

  it('treats identical content as a duplicate, not a conflict', async () => {
    const { memory } = fresh();
    const a = await memory.rememberWithConflictCheck({ content: PG14, type: 'project' });
    const b = await memory.rememberWithConflictCheck({ content: '  the database is postgresql 14 ', type: 'project' });
    expect(b).toMatchObject({ stored: false, duplicate: true, conflicts: [], superseded: [] });
    expect(b.memory!.id).toBe(a.memory!.id);
    expect((await memory.stats()).total).toBe(1);
  });

  it('only compares memories of the same type and scope', async () => {
    const { memory } = fresh();
    await memory.rememberWithConflictCheck({ content: PG14, type: 'reference' });
    await memory.withScope({ branch: 'feature/pg16' }).rememberWithConflictCheck({ content: PG14, type: 'project' });
    await memory.withScope({ tenant: 'other' }).rememberWithConflictCheck({ content: PG14, type: 'project' });
    const result = await memory.rememberWithConflictCheck({ content: PG16, type: 'project' });
    expect(result.conflicts).toEqual([]);
  });

  it('keep_both stores the new memory and leaves the old one in recall', async () => {
    const { memory } = fresh();
    const a = await memory.rememberWithConflictCheck({ content: PG14, type: 'project' });
    const b = await memory.rememberWithConflictCheck({ content: PG16, type: 'project' }, { resolution: 'keep_both' });
    expect(b).toMatchObject({ stored: true, resolution: 'keep_both', superseded: [] });
    expect(b.conflicts.map((c) => c.memory.id)).toEqual([a.memory!.id]);
    const recalled = await memory.recall('database PostgreSQL');
    expect(recalled.map((r) => r.memory.content).sort()).toEqual([PG14, PG16]);
  });

  it('keep_existing stores nothing when there is a conflict', async () => {
    const { memory } = fresh();
    const a = await memory.rememberWithConflictCheck({ content: PG14, type: 'project' });
    const b = await memory.rememberWithConflictCheck(
      { content: PG16, type: 'project' },
      { resolution: 'keep_existing' },
    );
    expect(b).toMatchObject({ stored: false, duplicate: false, resolution: 'keep_existing', superseded: [] });
    expect(b.memory).toBeUndefined();
    expect(b.conflicts.map((c) => c.memory.id)).toEqual([a.memory!.id]);
    expect((await memory.recall('database PostgreSQL')).map((r) => r.memory.content)).toEqual([PG14]);
    // Without a conflict keep_existing writes as usual.
    const c = await memory.rememberWithConflictCheck(
      { content: 'Deploys run on Fridays', type: 'project' },
      { resolution: 'keep_existing' },
    );
    expect(c.stored).toBe(true);
  });

  it('un-supersedes with restore', async () => {
    const { memory } = fresh();
    const a = (await memory.rememberWithConflictCheck({ content: PG14, type: 'project' })).memory!;
    await memory.rememberWithConflictCheck({ content: PG16, type: 'project' });
    const restored = await memory.restore(a.id);
    expect(restored.supersededBy).toBeUndefined();
    expect((await memory.history(a.id)).map((h) => h.action)).toEqual(['create', 'supersede', 'restore']);
    const recalled = await memory.recall('database PostgreSQL');
    expect(recalled.map((r) => r.memory.content).sort()).toEqual([PG14, PG16]);
  });

  it('stating a superseded fact again brings it back and supersedes the newer one', async () => {
    const { memory } = fresh();
    const a = (await memory.rememberWithConflictCheck({ content: PG14, type: 'project' })).memory!;
    const b = (await memory.rememberWithConflictCheck({ content: PG16, type: 'project' })).memory!;
    const again = await memory.rememberWithConflictCheck({ content: PG14, type: 'project' });
    expect(again).toMatchObject({ stored: true, duplicate: true, superseded: [b.id] });
    expect(again.memory!.id).toBe(a.id);
    expect((await memory.recall('database PostgreSQL')).map((r) => r.memory.content)).toEqual([PG14]);
    expect((await memory.stats()).total).toBe(1);
  });

  it('takes the threshold from options, then settings, then the embedder, then 0.8', async () => {
    const embedder = new FakeEmbedder({ dimension: 384 });
    const v = (t: string) => new HashingEmbedder().embedOne(t);
    const similarity = cosineSimilarity(v(PG14), v(PG16));
    expect(similarity).toBeLessThan(0.8);

    const byDefault = fresh({ embedder }).memory; // FakeEmbedder declares no threshold: 0.8
    await byDefault.rememberWithConflictCheck({ content: PG14, type: 'project' });
    expect((await byDefault.rememberWithConflictCheck({ content: PG16, type: 'project' })).conflicts).toEqual([]);

    const bySetting = fresh({
      embedder: new FakeEmbedder({ dimension: 384 }),
      conflictThreshold: similarity - 0.01,
    }).memory;
    await bySetting.rememberWithConflictCheck({ content: PG14, type: 'project' });
    expect((await bySetting.rememberWithConflictCheck({ content: PG16, type: 'project' })).conflicts).toHaveLength(1);

    const byOption = fresh().memory; // the hashing embedder's own threshold would find it; a stricter option does not
    await byOption.rememberWithConflictCheck({ content: PG14, type: 'project' });
    const strict = await byOption.rememberWithConflictCheck(
      { content: PG16, type: 'project' },
      { threshold: similarity + 0.01 },
    );
    expect(strict.conflicts).toEqual([]);
  });

  it('finds every conflict, however many', async () => {
    const { memory } = fresh();
    const versions = Array.from({ length: 20 }, (_, i) => `The database is PostgreSQL ${i + 1}`);
    await memory.rememberMany(versions.map((content) => ({ content, type: 'project' as const })));
    const result = await memory.rememberWithConflictCheck(
      { content: 'The database is PostgreSQL 42', type: 'project' },
      { threshold: 0.5 },
    );
    expect(result.conflicts).toHaveLength(20);
    expect(result.superseded).toHaveLength(20);
    expect(result.conflicts.map((c) => c.similarity)).toEqual(
      [...result.conflicts.map((c) => c.similarity)].sort((a, b) => b - a),
    );
  });

  it('writes the new memory and the supersede all or nothing', async () => {
    class FailingSupersede extends InMemoryBackend {
      override async patch(patches: Parameters<InMemoryBackend['patch']>[0]) {
        if (patches.some((p) => p.attributes?.status === 'superseded')) throw new Error('disk full');
        return super.patch(patches);
      }
    }
    const memory = new AgentMemory({ backend: new FailingSupersede() });
    await memory.rememberWithConflictCheck({ content: PG14, type: 'project' });
    await expect(memory.rememberWithConflictCheck({ content: PG16, type: 'project' })).rejects.toThrow('disk full');
    expect((await memory.stats()).total).toBe(1);
    expect((await memory.recall('database PostgreSQL')).map((r) => r.memory.content)).toEqual([PG14]);
  });

  it('rejects bad input and changes nothing', async () => {
    const { memory } = fresh();
    await memory.rememberWithConflictCheck({ content: PG14, type: 'project' });
    const isInvalid = (e: unknown) => AgentMemoryError.hasCode(e, 'INVALID_INPUT');
    await expect(
      memory.rememberWithConflictCheck({ content: PG16, type: 'project' }, { resolution: 'overwrite' as never }),
    ).rejects.toSatisfy(isInvalid);
    await expect(
      memory.rememberWithConflictCheck({ content: PG16, type: 'project' }, { threshold: 2 }),
    ).rejects.toSatisfy(isInvalid);
    await expect(memory.rememberWithConflictCheck({ content: '', type: 'project' })).rejects.toSatisfy(isInvalid);
    await expect(memory.rememberWithConflictCheck({ content: PG16, type: 'projects' as never })).rejects.toSatisfy(
      isInvalid,
    );
    await expect(
      memory.rememberWithConflictCheck({ content: PG16, type: 'project', namespace: '_history' }),
    ).rejects.toSatisfy(isInvalid);
    await expect(
      fresh({ maxContentLength: 10 }).memory.rememberWithConflictCheck({ content: PG16, type: 'project' }),
    ).rejects.toSatisfy(isInvalid);
    expect((await memory.stats()).total).toBe(1);
    expect((await memory.recall('database PostgreSQL')).map((r) => r.memory.content)).toEqual([PG14]);
  });
});
