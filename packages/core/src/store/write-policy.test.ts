import { describe, expect, it } from 'vitest';
import { createAgentMemory } from '../agent-memory';
import { InMemoryBackend } from '../backends';
import { AgentMemoryError } from '../errors';
import { SessionSummary } from '../sessions';
import { FakeEmbedder } from '../testing/fake-embedder';
import { DEFAULT_WRITE_LIMITS } from './limits';
import { MemoryStore } from './memory-store';
import { validateMetadata } from './validate';

async function store(options: Partial<Parameters<typeof createAgentMemory>[0]> = {}) {
  const embedder = new FakeEmbedder();
  const memory = await createAgentMemory({ backend: new InMemoryBackend(), embedder, ...options });
  return { memory, embedder };
}

async function refused(promise: Promise<unknown> | (() => unknown), field: string, rule?: string) {
  const error = await (typeof promise === 'function' ? Promise.resolve().then(promise) : promise).catch(
    (e: unknown) => e,
  );
  expect(AgentMemoryError.hasCode(error, 'INVALID_INPUT'), String(error)).toBe(true);
  expect((error as AgentMemoryError).details).toMatchObject({ field, ...(rule ? { rule } : {}) });
  return error as AgentMemoryError;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: what must never be stored
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

describe('metadata: size, depth and key count are bounded on every write', () => {
  it('2 MB of metadata is refused by remember, rememberMany, update and the conflict-checked write, before anything is embedded', async () => {
    const { memory, embedder } = await store();
    const existing = await memory.remember({ content: 'Deploys go through ArgoCD.', type: 'project' });
    embedder.calls.length = 0;
    const big = { blob: 'x'.repeat(2 * 1024 * 1024) };
    const error = await refused(
      memory.remember({ content: 'a', type: 'user', metadata: big }),
      'metadata',
      'max-bytes',
    );
    expect(error.message).toMatch(/the limit is 65536/);
    expect(error.message).toMatch(/raise limits\.maxMetadataBytes/);
    await refused(memory.rememberMany([{ content: 'b', type: 'user', metadata: big }]), 'metadata', 'max-bytes');
    await refused(memory.update(existing.id, { metadata: big }), 'metadata', 'max-bytes');
    await refused(memory.rememberWithConflictCheck({ content: 'c', type: 'user', metadata: big }), 'metadata');
    expect(embedder.calls).toEqual([]);
    expect((await memory.get(existing.id))?.metadata).toEqual({});
  });

  it('100 MB of metadata costs a refusal, not a copy: the bound is checked before serialising', () => {
    // One string shared 100 times: 100 MB as JSON, a few MB in memory. Serialising it would allocate 100 MB.
    const chunk = 'y'.repeat(1024 * 1024);
    const huge = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`k${i}`, chunk]));
    const stringify = JSON.stringify;
    let serialised = 0;
    JSON.stringify = ((...args: Parameters<typeof stringify>) => {
      serialised++;
      return stringify(...args);
    }) as typeof JSON.stringify;
    try {
      expect(() => validateMetadata(huge)).toThrow(/more than \d+ bytes as JSON; the limit is 65536/);
    } finally {
      JSON.stringify = stringify;
    }
    expect(serialised).toBe(0);
  });

  it('too deep, too many keys, cycles and values JSON cannot hold are refused with their rule', async () => {
    const { memory } = await store();
    let deep: Record<string, unknown> = { leaf: 1 };
    for (let i = 0; i < 30; i++) deep = { deep };
    await refused(memory.remember({ content: 'a', type: 'user', metadata: deep as never }), 'metadata', 'max-depth');
    const wide = Object.fromEntries(Array.from({ length: 1001 }, (_, i) => [`k${i}`, i]));
    await refused(memory.remember({ content: 'a', type: 'user', metadata: wide }), 'metadata', 'max-keys');
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    await refused(memory.remember({ content: 'a', type: 'user', metadata: cyclic as never }), 'metadata', 'json');
    await refused(memory.remember({ content: 'a', type: 'user', metadata: { n: 1n } as never }), 'metadata', 'json');
    await refused(memory.remember({ content: 'a', type: 'user', metadata: [] as never }), 'metadata', 'type');
  });

  it('the limits are the store options: raised where a user needs more, refused when not a positive whole number', async () => {
    const { memory } = await store({ limits: { maxMetadataBytes: 4 * 1024 * 1024, maxTags: 200 } });
    expect(memory.writeLimits).toEqual({ ...DEFAULT_WRITE_LIMITS, maxMetadataBytes: 4 * 1024 * 1024, maxTags: 200 });
    const kept = await memory.remember({
      content: 'A large annotation',
      type: 'user',
      metadata: { blob: 'x'.repeat(2 * 1024 * 1024) },
      tags: Array.from({ length: 150 }, (_, i) => `t${i}`),
    });
    expect(kept.tags).toHaveLength(150);
    const backend = new InMemoryBackend();
    expect(() => new MemoryStore({ backend, limits: { maxTags: 0 } })).toThrow(
      /maxTags must be a positive whole number/,
    );
    expect(() => new MemoryStore({ backend, limits: { maxTgas: 5 } as never })).toThrow(/Unknown limit maxTgas/);
  });

  it('control characters never reach stored metadata: values cleaned as content is, keys as one-line labels', async () => {
    const { memory } = await store();
    const stored = await memory.remember({
      content: 'Metadata hygiene',
      type: 'user',
      metadata: {
        'note\u0000': 'line one\nline two\u001b[31m red\u0007',
        list: ['\ud800x', { 'k\ny': '\u009b2Jz' }],
        ['__proto__']: { polluted: true },
      },
    });
    expect(stored.metadata).toEqual({
      note: 'line one\nline two red',
      list: ['\uFFFDx', { 'k y': 'z' }],
      ['__proto__']: { polluted: true },
    });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(stored.metadata)).toBe(Object.prototype);
    const again = await memory.get(stored.id);
    expect(JSON.stringify(again?.metadata)).not.toMatch(/\\u00[01]|\\u007f|\\u009/);
  });

  it('metadata with nothing to clean is stored as JSON gives it, as a copy, and still within the byte limit', async () => {
    const { memory } = await store();
    const given = { speaker: 'Caroline', turn: 3, at: new Date(0), nested: { ok: [1, 'two', null] }, gone: undefined };
    const stored = await memory.remember({ content: 'Metadata as given', type: 'user', metadata: given as never });
    expect(stored.metadata).toEqual({
      speaker: 'Caroline',
      turn: 3,
      at: '1970-01-01T00:00:00.000Z',
      nested: { ok: [1, 'two', null] },
    });
    given.nested.ok.push(4);
    expect((await memory.get(stored.id))?.metadata.nested).toEqual({ ok: [1, 'two', null] });
    const limited = new MemoryStore({
      backend: new InMemoryBackend(),
      embedder: new FakeEmbedder(),
      limits: { maxMetadataBytes: 20 },
    });
    await limited.remember({ content: 'fits', type: 'user', metadata: { k: 'x'.repeat(12) } }); // {"k":"xxxxxxxxxxxx"} is 20 bytes
    await refused(
      limited.remember({ content: 'too big', type: 'user', metadata: { k: 'é'.repeat(7) } }),
      'metadata',
      'max-bytes',
    );
  });
});

describe('tags: count and length are bounded, control characters removed', () => {
  it('a 100 MB tag list and a 1 MB tag are refused; tags are cleaned and deduplicated', async () => {
    const { memory, embedder } = await store();
    embedder.calls.length = 0;
    const many = Array.from({ length: 100_000 }, (_, i) => `tag-${i}`);
    await refused(memory.remember({ content: 'a', type: 'user', tags: many }), 'tags', 'max-count');
    await refused(
      memory.remember({ content: 'a', type: 'user', tags: ['t'.repeat(1024 * 1024)] }),
      'tags',
      'max-length',
    );
    await refused(memory.remember({ content: 'a', type: 'user', tags: 5 as never }), 'tags', 'type');
    expect(embedder.calls).toEqual([]);
    const stored = await memory.remember({
      content: 'Tag hygiene',
      type: 'user',
      tags: ['ops\u0000', '\u001b[2Jops', 'on\ncall', 'x\ud800'],
    });
    expect(stored.tags).toEqual(['ops', 'on call', 'x\uFFFD']);
    const updated = await memory.update(stored.id, { tags: ['a\u0007b'] });
    expect(updated.tags).toEqual(['ab']);
    for (const tag of [...stored.tags, ...updated.tags]) expect(tag).not.toMatch(CONTROL);
  });
});

describe('identifiers: tenants, namespaces, agent and session ids are refused, never cleaned', () => {
  it('a tenant id with NUL or ESC, or of 10,000 characters, is refused where the store is made (withScope too)', async () => {
    const backend = new InMemoryBackend();
    for (const tenant of ['acme\u0000', 'acme\u001b[2J', 'a'.repeat(10_000), 'line\nbreak']) {
      await refused(() => new MemoryStore({ backend, tenant }), 'tenant');
    }
    const { memory } = await store();
    await refused(() => memory.withScope({ tenant: 'x\u0000' }), 'tenant');
    expect(memory.withScope({ tenant: 'acme-corp/eu' }).tenant).toBe('acme-corp/eu');
  });

  it('namespaces with NUL or a newline are refused', async () => {
    const { memory } = await store();
    await refused(
      memory.remember({ content: 'a', type: 'user', namespace: 'team\u0000' }),
      'namespace',
      'control-characters',
    );
    await refused(
      memory.remember({ content: 'a', type: 'user', namespace: 'team\nx' }),
      'namespace',
      'control-characters',
    );
    await refused(
      memory.remember({ content: 'a', type: 'user', namespace: 'n'.repeat(513) }),
      'namespace',
      'max-length',
    );
    expect((await memory.remember({ content: 'a', type: 'user', namespace: 'team:payments' })).namespace).toBe(
      'team:payments',
    );
  });

  it('agent ids and session ids follow the same rule', async () => {
    const backend = new InMemoryBackend();
    await refused(() => new MemoryStore({ backend, agentId: 'bot\u0007' }), 'agentId');
    await refused(() => new MemoryStore({ backend, agentId: 'b'.repeat(257) }), 'agentId', 'max-length');
    const { memory } = await store();
    await refused(
      memory.rememberConversation([{ speaker: 'user', text: 'hi' }], { sessionId: 'chat\u0000' }),
      'sessionId',
    );
    await refused(
      () => new SessionSummary(memory, { sessionId: 's'.repeat(300), summarize: async () => 'x' }),
      'sessionId',
    );
    await refused(memory.contextFor('deploys', { sessionId: 'a\nb' }), 'sessionId');
  });
});

describe('rememberConversation passes the same policy', () => {
  it("a turn's metadata is bounded and cleaned like any other", async () => {
    const { memory } = await store();
    await refused(
      memory.rememberConversation([{ speaker: 'user', text: 'hi', metadata: { blob: 'x'.repeat(100_000) } }]),
      'metadata',
      'max-bytes',
    );
    const [turn] = await memory.rememberConversation([
      { speaker: 'user\u0000', text: 'Moved to \u001b[1mLisbon', metadata: { 'src\u0007': 'chat\u0000' } },
    ]);
    expect(turn!.content).toBe('user: Moved to Lisbon');
    expect(turn!.metadata).toMatchObject({ speaker: 'user', src: 'chat' });
  });
});
