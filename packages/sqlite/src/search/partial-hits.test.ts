import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentMemory, type MemoryBackend, type SearchRequest } from '@agentmem/core';
import { SemanticTestEmbedder } from '@agentmem/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteBackend } from '../backend';
import { HOUR, seedAgedNotes, T0, WORDS } from '../test-fixtures/aged-notes';

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
    // A person named in one note of three, and two types.
    const pruned = await seedAgedNotes(backend, {
      seed: 5,
      clock,
      embedder,
      suffix: (i) => (i % 3 === 0 ? ` with ${PEOPLE[i % PEOPLE.length]}` : ''),
      type: (i) => (i % 2 === 0 ? 'project' : 'user'),
      // Some forgotten, and one accessed (its access not written yet: recall ranks by the pending one).
      afterRecent: async (m, created) => {
        for (const c of created.filter((_, i) => i % 23 === 0)) await m.forget(c.id);
        await m.recall(WORDS[1]!, { k: 3 });
      },
    });
    expect(pruned).toBeGreaterThan(50);
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

  it('makes the memory of a whole hit only when it is among the k, ranked by its fields and a pending access', async () => {
    // One store (one reinforcement buffer), partial hits on or off per recall; the keyword hits' (whole)
    // payloads count how often they are spread into a memory.
    const flag = { partial: true };
    const made = { count: 0 };
    const counted = (payload: object) =>
      new Proxy(payload, {
        ownKeys(target) {
          made.count++;
          return Reflect.ownKeys(target);
        },
      });
    const capabilities = () => ({ ...backend.capabilities, partialHits: flag.partial });
    const counting = new Proxy(backend, {
      get(target, key) {
        if (key === 'capabilities') return capabilities();
        const value = Reflect.get(target, key, target);
        if (key === 'search')
          return async (request: SearchRequest) => {
            const hits = await value.call(target, request);
            if (request.mode !== 'keyword') return hits;
            return hits.map((h: { record: { payload: object } }) => ({
              ...h,
              record: { ...h.record, payload: counted(h.record.payload) },
            }));
          };
        return typeof value === 'function' ? value.bind(target) : value;
      },
    }) as MemoryBackend;
    const m = memory(counting, '');
    // Accesses buffered a little later than the stored ones: these memories rank by the pending ones.
    clock.now += HOUR;
    for (const q of queries.slice(0, 3)) await m.recall(q, { k: 10 });
    let whole = 0;
    for (const q of queries) {
      for (const k of [1, 5, 10]) {
        flag.partial = true;
        made.count = 0;
        const got = await m.recall(q, { k, reinforce: false, mode: 'hybrid' });
        // At most the k returned were made (a whole hit outside the k is ranked from its fields).
        expect(made.count).toBeLessThanOrEqual(k);
        whole += made.count;
        flag.partial = false;
        expect(got).toEqual(await m.recall(q, { k, reinforce: false, mode: 'hybrid' }));
      }
    }
    expect(whole).toBeGreaterThan(20);
  });
});
