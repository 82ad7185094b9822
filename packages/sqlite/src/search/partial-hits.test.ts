import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentMemory, type MemoryBackend, type SearchRequest } from '@agentmem/core';
import { SemanticTestEmbedder, seededRandom } from '@agentmem/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteBackend } from '../backend';

const HOUR = 3_600_000;
const T0 = Date.parse('2026-01-01T00:00:00Z');
const WORDS = ['kafka', 'broker', 'deploy', 'staging', 'cluster', 'latency', 'budget', 'review', 'schema', 'backup'];
const PEOPLE = ['Caroline', 'Melanie', 'Joanna', 'Nate'];

/** The same backend, its calls counted, and declaring `partialHits` or not (core then reads every hit whole). */
function view(backend: SqliteBackend, partialHits: boolean, calls: { partial: number; get: number }): MemoryBackend {
  const capabilities = { ...backend.capabilities, partialHits };
  return new Proxy(backend, {
    get(target, key) {
      if (key === 'capabilities') return capabilities;
      const value = Reflect.get(target, key, target);
      if (key === 'search')
        return (request: SearchRequest) => {
          if (request.partial) calls.partial++;
          return value.call(target, request);
        };
      if (key === 'get') calls.get++;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

describe('partial hits: recall reads whole records for the k it returns only', () => {
  let dir: string;
  let backend: SqliteBackend;
  const clock = { now: T0 };
  const embedder = new SemanticTestEmbedder();
  const memory = (b: MemoryBackend, tenant: string) =>
    new AgentMemory({ backend: b, embedder, now: () => clock.now, tenant });
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'agentmem-partial-'));
    backend = new SqliteBackend({ path: join(dir, 'memory.db') });
    clock.now = T0;
    const random = seededRandom(5);
    // 400 memories of a 10-word vocabulary, a person named in one of three, a quarter in another tenant;
    // one in seven of low importance and a year older than the rest (decay prunes them below).
    const inputs = Array.from({ length: 400 }, (_, i) => ({
      content:
        `note ${i}: ${Array.from({ length: 6 }, () => WORDS[Math.floor(random() * WORDS.length)]).join(' ')}` +
        (i % 3 === 0 ? ` with ${PEOPLE[i % PEOPLE.length]}` : ''),
      type: i % 2 === 0 ? ('project' as const) : ('user' as const),
      importance: i % 7 === 0 ? 0.05 : 0.3 + random() * 0.7,
    }));
    const old = (i: number) => i % 7 === 0;
    for (const [tenant, part] of [
      ['', inputs.slice(0, 300)],
      ['acme', inputs.slice(300)],
    ] as const) {
      const m = memory(backend, tenant);
      clock.now = T0;
      await m.rememberMany(part.filter((_, i) => old(i)));
      clock.now = T0 + 364 * 24 * HOUR;
      const created = await m.rememberMany(part.filter((_, i) => !old(i)));
      // Some forgotten, and one accessed (its access not written yet: recall ranks by the pending one).
      for (const c of created.filter((_, i) => i % 23 === 0)) await m.forget(c.id);
      await m.recall(WORDS[1]!, { k: 3 });
    }
    // A day later decay prunes the old ones: changes pending in the log, which reads merge in.
    clock.now = T0 + 365 * 24 * HOUR;
    expect((await memory(backend, '').applyDecay()).pruned).toBeGreaterThan(50);
  });
  afterEach(async () => {
    await backend.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Recall through both views: the same memories, order, scores and signals; the counts of each. */
  async function compare(
    queries: readonly string[],
    options: (q: number) => Record<string, unknown>,
  ): Promise<{ partial: number; get: number; denseOnly: number; entity: number }> {
    const calls = { partial: 0, get: 0 };
    const ignored = { partial: 0, get: 0 };
    let denseOnly = 0;
    let entity = 0;
    for (const tenant of ['', 'acme']) {
      const a = memory(view(backend, true, calls), tenant);
      const b = memory(view(backend, false, ignored), tenant);
      for (let q = 0; q < queries.length; q++) {
        for (const k of [1, 10, 60]) {
          const o = { k, reinforce: false, ...options(q) };
          const got = await a.recall(queries[q]!, o);
          if (k === 1 || tenant === '') expect(got.length).toBe(k);
          expect(got).toEqual(await b.recall(queries[q]!, o));
          denseOnly += got.filter((r) => r.signals.dense && !r.signals.keyword).length;
          entity += got.filter((r) => r.signals.entity).length;
        }
      }
    }
    expect(ignored.partial).toBe(0);
    return { ...calls, denseOnly, entity };
  }

  const queries = WORDS.map((w, q) => `${w} ${WORDS[(q * 3 + 1) % WORDS.length]} ${q % 2 ? PEOPLE[q % 4] : ''}`);

  it('ranks as recall does from whole records, in every mode, with entity evidence and pruned memories', async () => {
    const modes = ['hybrid', 'dense', 'keyword'] as const;
    const seen = await compare(queries, (q) => ({ mode: modes[q % 3], includePruned: q % 2 === 0 }));
    expect(seen.partial).toBeGreaterThan(0);
    expect(seen.get).toBeGreaterThan(0); // the final k read whole
    expect(seen.denseOnly).toBeGreaterThan(20); // hits that came partial, read after fusion
    expect(seen.entity).toBeGreaterThan(0);
  });

  it('refuses a partial request that is not a list of attribute names, naming the fix', async () => {
    const request = { mode: 'dense' as const, vector: embedder.embedOne('kafka'), filter: { tenant: '' }, k: 5 };
    for (const partial of [{ attributes: 'status' }, { attributes: ['a"b'] }, null]) {
      await expect(backend.search({ ...request, partial } as unknown as SearchRequest)).rejects.toMatchObject({
        code: 'INVALID_INPUT',
        message: expect.stringContaining('partial must be { attributes: [...] }'),
      });
    }
  });

  it('reads every hit whole when an attribute it ranks by is missing or disagrees with the memory', async () => {
    const ids = (await backend.scan({ filter: { tenant: null, where: { kind: 'memory' } }, limit: 1000 })).records.map(
      (r) => r.id,
    );
    expect(ids.length).toBeGreaterThan(350);
    // Attributes written by hand, unlike the memories they belong to: what another writer could leave.
    // First copies that disagree (the ranking they give is not recall's), then some missing.
    for (const [nth, attributes] of [
      [1, { importance: 1, lastAccessedAt: T0 + 365 * 24 * HOUR }],
      [2, { importance: null }],
    ] as const) {
      await backend.patch(ids.filter((_, i) => i % 5 === nth).map((id) => ({ id, attributes: { ...attributes } })));
      const seen = await compare(queries.slice(0, 4), () => ({ mode: 'dense' }));
      expect(seen.denseOnly).toBeGreaterThan(20);
    }
  });
});
