import { AgentMemoryError } from '@agentmem/core';
import { QdrantBackend } from '@agentmem/qdrant';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  incompatibilityWarning,
  qdrantClientVersion,
  versionsCompatible,
} from '../../packages/qdrant/src/server-version';
import { describeWithSpec, useFakeQdrant } from './helpers';

const DIM = 8;

afterEach(() => {
  vi.restoreAllMocks();
});

describe('Qdrant client/server version check', () => {
  it("applies the client's rule: same major, minor at most one apart", () => {
    expect(versionsCompatible('1.18.0', '1.19.2')).toBe(true);
    expect(versionsCompatible('1.18.0', '1.17.0')).toBe(true);
    expect(versionsCompatible('1.18.0', '1.16.9')).toBe(false);
    expect(versionsCompatible('1.18.0', '2.18.0')).toBe(false);
    expect(versionsCompatible('1.18.0', 'dev')).toBe(false);
    expect(incompatibilityWarning('1.18.0', '1.12.0')).toMatch(/checkCompatibility: false/);
    expect(incompatibilityWarning('1.18.0', '1.19.0')).toBeUndefined();
    expect(incompatibilityWarning(undefined, '1.12.0')).toBeUndefined();
    // a server built from source says "master" (as Qdrant's own OpenAPI document does): nothing to compare
    expect(incompatibilityWarning('1.18.0', 'master')).toBeUndefined();
  });

  it('reads the installed client version', () => {
    expect(qdrantClientVersion()).toMatch(/^1\.\d+\.\d+/);
  });

  it('an unreachable server gives agentmem\'s BACKEND_UNAVAILABLE and no warning from the client about "checkCompatibility"', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    // Every request the client makes (it fetches through the global fetch), to wait for each to end.
    const requests: { url: string; done: Promise<unknown> }[] = [];
    const fetch = globalThis.fetch;
    vi.spyOn(globalThis, 'fetch').mockImplementation((input, init) => {
      const response = fetch(input, init);
      requests.push({ url: String(input instanceof Request ? input.url : input), done: response.catch(() => {}) });
      return response;
    });
    const down = new QdrantBackend({
      url: 'http://127.0.0.1:1',
      collection: 'x',
      retry: { retries: 0 },
    });
    const error = await down.init({ dimension: DIM }).catch((e: unknown) => e);
    expect(AgentMemoryError.hasCode(error, 'BACKEND_UNAVAILABLE')).toBe(true);
    expect(requests.length).toBeGreaterThan(0);
    // The client's own check asks the server's root (GET /) from its constructor, before init's requests.
    expect(requests.map((r) => new URL(r.url).pathname)).not.toContain('/');
    // Had it run, it prints once its request fails: wait for every request to end, then for its handler.
    await Promise.all(requests.map((r) => r.done));
    await new Promise((resolve) => setImmediate(resolve));
    expect(warn).not.toHaveBeenCalled();
  });
});

describeWithSpec('Qdrant version check against the fake server', () => {
  const ctx = useFakeQdrant();

  it('asks the server its version once, at the first init, and gives no warning for the version it reports', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const before = ctx.fake.requestsFor('root').length;
    const backend = ctx.backend({ checkCompatibility: true });
    await backend.init({ dimension: DIM });
    await backend.init({ dimension: DIM });
    expect(ctx.fake.requestsFor('root').length - before).toBe(1);
    expect(warn).not.toHaveBeenCalled();
    const quiet = ctx.backend({ checkCompatibility: false });
    await quiet.init({ dimension: DIM });
    expect(ctx.fake.requestsFor('root').length - before).toBe(1);
  });
});
