import { describe, expect, it, vi } from 'vitest';
import { AgentMemory } from '../agent-memory';
import { InMemoryBackend } from '../backends';
import type { Embedder } from '../contracts';
import { HashingEmbedder } from '../embedding';
import { AgentMemoryError } from '../errors';
import { FakeEmbedder } from '../testing';

function fresh(options: Partial<ConstructorParameters<typeof AgentMemory>[0]> = {}) {
  return new AgentMemory({ backend: new InMemoryBackend(), ...options });
}

const code = (c: string) => (e: unknown) => AgentMemoryError.hasCode(e, c as never);

describe('MemoryStore.remember', () => {
  it('derives namespace, hash, timestamps and provenance', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const memory = fresh({ branch: 'feature/x', agentId: 'agent-1', now: () => now });
    const m = await memory.remember({
      content: 'We deploy with Helm',
      type: 'project',
      importance: 0.8,
      tags: ['ops'],
    });
    expect(m).toMatchObject({
      type: 'project',
      namespace: 'project:feature/x',
      branch: 'feature/x',
      agentId: 'agent-1',
      importance: 0.8,
      tags: ['ops'],
      accessCount: 0,
      createdAt: '2026-01-01T00:00:00.000Z',
    });
    now += 1000;
    const u = await memory.remember({ content: 'Prefers short answers', type: 'user' });
    expect(u.namespace).toBe('user');
    expect(u.branch).toBeUndefined();
    expect(await memory.get(m.id)).toMatchObject({ content: 'We deploy with Helm' });
  });

  it('writes the same content twice as one memory, also within a batch', async () => {
    const memory = fresh();
    const a = await memory.remember({ content: 'The API runs on port 8080', type: 'project' });
    const b = await memory.remember({ content: 'the api runs on PORT 8080  ', type: 'project' });
    const batch = await memory.rememberMany([
      { content: 'Uses pnpm', type: 'project' },
      { content: 'uses pnpm', type: 'project' },
    ]);
    expect(b.id).toBe(a.id);
    expect(batch[0]!.id).toBe(batch[1]!.id);
    expect((await memory.stats()).total).toBe(2);
    // Same content under another type is another memory (another namespace).
    await memory.remember({ content: 'The API runs on port 8080', type: 'reference' });
    expect((await memory.stats()).total).toBe(3);
  });

  it('refuses bad input with a clear error and writes nothing', async () => {
    const memory = fresh();
    await expect(memory.remember({ content: '   ', type: 'user' })).rejects.toSatisfy(code('INVALID_INPUT'));
    await expect(memory.remember({ content: 'x'.repeat(40_000), type: 'user' })).rejects.toThrow(/limit is 32000/);
    await expect(memory.remember({ content: 'ok', type: 'nope' as never })).rejects.toThrow(
      /user, feedback, project, reference/,
    );
    await expect(memory.remember({ content: 'ok', type: 'user', importance: 2 })).rejects.toThrow(/0 to 1/);
    await expect(memory.remember({ content: 'ok', type: 'user', namespace: '_skills' })).rejects.toThrow(/reserved/);
    await expect(
      memory.rememberMany([
        { content: 'valid one', type: 'user' },
        { content: '', type: 'user' },
      ]),
    ).rejects.toSatisfy(code('INVALID_INPUT'));
    expect((await memory.stats()).total).toBe(0);
  });

  it('refuses an explicit id that another record holds, in any tenant, and changes nothing', async () => {
    const backend = new InMemoryBackend();
    const alice = new AgentMemory({ backend, tenant: 'alice' });
    const bob = alice.withScope({ tenant: 'bob' });
    await alice.remember({ id: 'x', content: 'The vault code is 1234', type: 'user' });
    await expect(bob.remember({ id: 'x', content: 'Bob likes tea', type: 'user' })).rejects.toSatisfy(code('CONFLICT'));
    await expect(alice.remember({ id: 'x', content: 'Something else', type: 'user' })).rejects.toThrow(/update\(\)/);
    await expect(
      alice.rememberMany([
        { id: 'y', content: 'first', type: 'user' },
        { id: 'y', content: 'second', type: 'user' },
      ]),
    ).rejects.toSatisfy(code('CONFLICT'));
    expect((await alice.get('x'))?.content).toBe('The vault code is 1234');
    expect(await alice.get('y')).toBeUndefined();
    expect((await alice.history('x')).map((h) => h.action)).toEqual(['create']);
    expect((await bob.stats()).total).toBe(0);
    // The same content again with its own id is still the one memory.
    expect((await alice.remember({ id: 'x', content: 'The vault code is 1234', type: 'user' })).id).toBe('x');
  });

  it('refuses an embedder whose vectors do not match its declared dimension', async () => {
    const inner = new FakeEmbedder({ dimension: 16 });
    const liar: Embedder = { specificationVersion: 'v1', id: 'liar', dimension: 8, embed: (t, o) => inner.embed(t, o) };
    const memory = fresh({ embedder: liar });
    await expect(memory.remember({ content: 'hello world', type: 'user' })).rejects.toSatisfy(
      code('DIMENSION_MISMATCH'),
    );
  });

  it('opens a store whose embedder id is written and its dimension not yet (another process between the two writes)', async () => {
    const backend = new InMemoryBackend();
    const embedder = new HashingEmbedder({ dimension: 64 });
    await backend.setMeta('embedder.id', embedder.id);
    const memory = new AgentMemory({ backend, embedder });
    await memory.remember({ content: 'The staging database is PostgreSQL 16', type: 'project' });
    expect(await backend.getMeta('embedder.dimension')).toBe('64');
    // Another embedder is still refused on such a store.
    const other = new AgentMemory({ backend: new InMemoryBackend(), embedder });
    await other.backend.setMeta('embedder.id', 'other-model');
    expect(AgentMemoryError.hasCode(await other.recall('x').catch((e) => e), 'EMBEDDER_MISMATCH')).toBe(true);
  });

  it('refuses to open a store built with another embedder, saying how to re-embed', async () => {
    const backend = new InMemoryBackend();
    await new AgentMemory({ backend, embedder: new HashingEmbedder({ dimension: 64 }) }).remember({
      content: 'fact',
      type: 'user',
    });
    const other = new AgentMemory({ backend, embedder: new FakeEmbedder({ dimension: 64, id: 'other-model' }) });
    const error = await other.recall('fact').catch((e) => e);
    expect(AgentMemoryError.hasCode(error, 'EMBEDDER_MISMATCH')).toBe(true);
    expect(error.message).toMatch(/agentmem\/hashing-v1:64/);
    expect(error.message).toMatch(/re-embed/);
  });
});

describe('MemoryStore.update / forget / history', () => {
  it('re-embeds changed content and records every change', async () => {
    const embedder = new FakeEmbedder();
    const memory = fresh({ embedder });
    const m = await memory.remember({ content: 'Deploys go out on Fridays', type: 'project' });
    const callsAfterCreate = embedder.calls.length;
    await memory.update(m.id, { importance: 0.9 });
    expect(embedder.calls.length).toBe(callsAfterCreate); // no re-embedding for metadata-only changes
    const u = await memory.update(m.id, { content: 'Deploys go out on Tuesdays' });
    expect(embedder.calls.length).toBe(callsAfterCreate + 1);
    expect(u.contentHash).not.toBe(m.contentHash);
    const [top] = await memory.recall('when do deploys go out tuesdays');
    expect(top?.memory.content).toBe('Deploys go out on Tuesdays');
    expect(await memory.forget(m.id)).toBe(true);
    expect(await memory.get(m.id)).toBeUndefined();
    expect(await memory.forget(m.id)).toBe(false);
    const history = await memory.history(m.id);
    expect(history.map((h) => h.action)).toEqual(['create', 'update', 'update', 'forget']);
    expect(history[3]!.memory.content).toBe('Deploys go out on Tuesdays');
    await expect(memory.update('missing', { importance: 0.1 })).rejects.toSatisfy(code('NOT_FOUND'));
  });
});

describe('MemoryStore.recall', () => {
  it('finds by keyword and by similarity, and says which signal matched', async () => {
    const memory = fresh();
    await memory.rememberMany([
      { content: 'The production database is PostgreSQL 16 on RDS', type: 'project' },
      { content: 'Alice prefers dark mode', type: 'user' },
      { content: 'Never force-push to main', type: 'feedback' },
    ]);
    const [top] = await memory.recall('what database runs in production?');
    expect(top?.memory.content).toMatch(/PostgreSQL/);
    expect(top?.signals.keyword?.rank).toBe(1);
    expect(top?.relevance).toBeGreaterThan(0);
    expect(top?.relevance).toBeLessThanOrEqual(1);
  });

  it('reinforces what it returns: lastAccessedAt and accessCount', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const memory = fresh({ now: () => now });
    const m = await memory.remember({ content: 'Builds use Node 20', type: 'project' });
    now += 3_600_000;
    await memory.recall('which node version do builds use');
    const after = await memory.get(m.id);
    expect(after?.accessCount).toBe(1);
    expect(after?.lastAccessedAt).toBe(new Date(now).toISOString());
    await memory.recall('node builds', { reinforce: false });
    expect((await memory.get(m.id))?.accessCount).toBe(1);
  });

  it('reinforcing never undoes a write made while the recall ran (update, supersede)', async () => {
    // Another writer acts between recall's search and its reinforce (a reranker call, another process).
    class Interleaving extends InMemoryBackend {
      between: (() => Promise<void>) | undefined;
      override async search(request: Parameters<InMemoryBackend['search']>[0]) {
        const hits = await super.search(request);
        const between = this.between;
        this.between = undefined;
        await between?.();
        return hits;
      }
    }
    const backend = new Interleaving();
    const memory = new AgentMemory({ backend });
    const writer = new AgentMemory({ backend });
    const [deploy, port] = await memory.rememberMany([
      { content: 'Deploys go out on Mondays', type: 'project' },
      { content: 'The API listens on port 8080', type: 'project' },
    ]);
    backend.between = async () => {
      await writer.update(deploy!.id, { content: 'Deploys go out on Tuesdays' });
    };
    await memory.recall('when do deploys go out?', { mode: 'keyword' });
    backend.between = async () => {
      await writer.patchMemories([{ ...(await writer.get(port!.id))!, supersededBy: 'other' }], 'supersede');
    };
    await memory.recall('which port does the API listen on?', { mode: 'keyword' });
    expect((await memory.get(deploy!.id))?.content).toBe('Deploys go out on Tuesdays');
    expect((await memory.get(deploy!.id))?.accessCount).toBe(1);
    expect((await memory.get(port!.id))?.supersededBy).toBe('other');
    expect((await memory.recall('which port does the API listen on?')).map((r) => r.memory.id)).not.toContain(port!.id);
  });

  it('ranks important and recently used memories higher, other things equal', async () => {
    const memory = fresh();
    const low = await memory.remember({ content: 'The cache TTL is 60 seconds', type: 'project', importance: 0.1 });
    const high = await memory.remember({
      content: 'The cache TTL is 60 seconds in staging',
      type: 'project',
      importance: 1,
    });
    const results = await memory.recall('cache TTL seconds', { reinforce: false });
    expect(results.map((r) => r.memory.id).slice(0, 2)).toEqual([high.id, low.id]);
  });

  it('sees only its branch for project memories, globals everywhere', async () => {
    const backend = new InMemoryBackend();
    const main = new AgentMemory({ backend, branch: 'main' });
    const feature = main.withScope({ branch: 'feature/auth' });
    expect(main.withScope({ tenant: undefined })).toBe(main); // no scope given: the store itself
    await main.remember({ content: 'Auth uses sessions stored in Redis', type: 'project' });
    await feature.remember({ content: 'Auth moves to JWT tokens', type: 'project' });
    await main.remember({ content: 'The user likes concise answers', type: 'user' });
    const onFeature = (await feature.recall('auth tokens sessions user answers', { k: 10 })).map(
      (r) => r.memory.content,
    );
    expect(onFeature).toContain('Auth moves to JWT tokens');
    expect(onFeature).toContain('The user likes concise answers');
    expect(onFeature).not.toContain('Auth uses sessions stored in Redis');
  });

  it('honours types, k, minScore and rejects a bad query', async () => {
    const memory = fresh();
    await memory.rememberMany(
      Array.from({ length: 12 }, (_, i) => ({
        content: `Service ${i} listens on port ${8000 + i}`,
        type: 'reference' as const,
      })),
    );
    await memory.remember({ content: 'Service owners prefer email over chat', type: 'user' });
    expect(await memory.recall('service port', { k: 3 })).toHaveLength(3);
    const users = await memory.recall('service', { types: ['user'] });
    expect(users.every((r) => r.memory.type === 'user')).toBe(true);
    expect(await memory.recall('service port', { minScore: 5 })).toEqual([]);
    await expect(memory.recall('  ')).rejects.toSatisfy(code('INVALID_INPUT'));
    await expect(memory.recall('x', { k: 0 })).rejects.toSatisfy(code('INVALID_INPUT'));
  });

  it('checks a large batch for duplicates with a few queries, not one per memory', async () => {
    const backend = new InMemoryBackend();
    const memory = new AgentMemory({ backend });
    await memory.remember({ content: 'fact number 7', type: 'user' });
    const scan = vi.spyOn(backend, 'scan');
    const get = vi.spyOn(backend, 'get');
    const batch = await memory.rememberMany(
      Array.from({ length: 2500 }, (_, i) => ({ content: `fact number ${i}`, type: 'user' as const })),
    );
    expect(scan.mock.calls.length).toBeLessThanOrEqual(10);
    expect(get.mock.calls.length).toBeLessThanOrEqual(10);
    expect(new Set(batch.map((m) => m.id)).size).toBe(2500);
    expect((await memory.stats()).total).toBe(2500); // fact number 7 was found, not written twice
  });

  it('stats count memories only, not other record kinds in the same backend', async () => {
    const backend = new InMemoryBackend();
    const memory = new AgentMemory({ backend });
    await memory.remember({ content: 'a fact', type: 'user' });
    await backend.upsert([
      {
        id: 'lg1',
        namespace: 'lg:notes',
        tenant: '',
        text: 'item',
        attributes: { kind: 'langgraph-item' },
        payload: {},
      },
    ]);
    expect(await memory.stats()).toEqual({ namespaces: [{ namespace: 'user', count: 1 }], total: 1, inactive: 0 });
  });

  it('covers every memory in memories(), beyond any page size', async () => {
    const memory = fresh();
    await memory.rememberMany(
      Array.from({ length: 2500 }, (_, i) => ({ content: `fact number ${i}`, type: 'user' as const })),
    );
    let n = 0;
    for await (const _ of memory.memories()) n++;
    expect(n).toBe(2500);
  });
});

describe('AgentMemory.contextFor', () => {
  it('renders relevant memories into a delimited block and nothing for unrelated messages', async () => {
    const memory = fresh();
    await memory.remember({ content: 'The staging cluster is in eu-west-1', type: 'project' });
    const context = await memory.contextFor('where is the staging cluster?');
    expect(context.memories).toHaveLength(1);
    expect(context.block).toMatch(/^<agentmem-context>/);
    expect(context.block).toContain('## Relevant memories');
    expect(context.block).toContain('- [project] The staging cluster is in eu-west-1');
    expect(context.block.trimEnd().endsWith('</agentmem-context>')).toBe(true);
    const none = await memory.contextFor('tell me a joke about cats');
    expect(none.block).toBe('');
  });
});
