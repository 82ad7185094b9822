import { describe, expect, it } from 'vitest';
import { AgentMemory } from '../agent-memory';
import { InMemoryBackend } from '../backends';
import type { BackendRecord, SearchHit } from '../contracts';
import { applyEntityEvidence, ENTITY_HOP_WEIGHT, ENTITY_LINK_LIMIT } from './entity-evidence';

const record = (id: string, keys: string[], overrides: Partial<BackendRecord> = {}): BackendRecord => ({
  id,
  namespace: 'user',
  tenant: '',
  text: id,
  links: keys,
  attributes: { kind: 'memory', status: 'active' },
  payload: { entities: keys.map((key) => ({ key, name: key, kind: 'name', source: 'text' })) },
  ...overrides,
});

async function backendWith(records: BackendRecord[]) {
  const backend = new InMemoryBackend();
  await backend.init({ dimension: 2 });
  await backend.upsert(records);
  return backend;
}

const filter = { tenant: '', namespaces: ['user'], where: { kind: 'memory', status: 'active' } };
const hit = (r: BackendRecord, score: number): SearchHit => ({ record: r, score });
const ranked = (hits: SearchHit[]) => hits.map((h) => `${h.record.id}:${h.score.toFixed(2)}`);

describe('applyEntityEvidence', () => {
  it('reaches a memory linked to an entity the query names, and follows the best candidates to memories they share an entity with', async () => {
    const seed = record('seed', ['oliv']);
    const records = [
      seed,
      record('other', []),
      record('named', ['luna']), // linked to the query's entity, no keyword match
      record('hop', ['oliv']), // shares Oliver with the best candidate
      record('inactive', ['luna'], { attributes: { kind: 'memory', status: 'superseded' } }),
      record('foreign', ['luna'], { tenant: 't2' }),
    ];
    const backend = await backendWith(records);
    const out = await applyEntityEvidence([hit(seed, 2), hit(records[1]!, 1)], {
      backend,
      query: 'Where does Luna sleep?',
      filter,
      pool: 10,
    });
    expect(out.map((h) => h.record.id)).toEqual(['seed', 'other', 'hop', 'named']);
    const hop = out.find((h) => h.record.id === 'hop')!;
    // Oliver links two memories: weight ln(1 + L/2) / ln(1 + L); the hop scores that share of the seed's 2.
    const weight = Math.log(1 + ENTITY_LINK_LIMIT / 2) / Math.log(1 + ENTITY_LINK_LIMIT);
    expect(hop.score).toBeCloseTo(ENTITY_HOP_WEIGHT * weight * 2);
    expect(hop.entity).toEqual({ keys: [], via: { id: 'seed', key: 'oliv' } });
    expect(out.find((h) => h.record.id === 'named')!.entity).toEqual({ keys: ['luna'] });
    // Candidates reached through links are held to recall's filter: no inactive memory, no other tenant.
    expect(out.some((h) => h.record.id === 'inactive' || h.record.id === 'foreign')).toBe(false);
  });

  it('a memory reached through a link that recall does not admit gives its place to the next', async () => {
    const seed = record('seed', []);
    const backend = await backendWith([
      seed,
      record('a-inactive', ['luna'], { attributes: { kind: 'memory', status: 'superseded' } }),
      record('b-named', ['luna']),
    ]);
    const out = await applyEntityEvidence([hit(seed, 1)], { backend, query: 'luna', filter, pool: 2 });
    expect(out.map((h) => h.record.id)).toEqual(['seed', 'b-named']);
  });

  it('skips entities linked to more memories than ENTITY_LINK_LIMIT (a speaker of every turn)', async () => {
    const many = Array.from({ length: ENTITY_LINK_LIMIT + 1 }, (_, i) =>
      record(`m${String(i).padStart(3, '0')}`, ['melani']),
    );
    const backend = await backendWith(many);
    const hits = [hit(many[0]!, 1)];
    const out = await applyEntityEvidence(hits, { backend, query: 'What does Melanie like?', filter, pool: 50 });
    expect(ranked(out)).toEqual(ranked(hits));
  });

  it('keeps at most `pool` candidates and changes nothing on a backend without links', async () => {
    const records = Array.from({ length: 8 }, (_, i) => record(`n${i}`, ['luna']));
    const backend = await backendWith(records);
    const out = await applyEntityEvidence([hit(records[0]!, 1)], { backend, query: 'luna', filter, pool: 3 });
    expect(out).toHaveLength(3);
    const plain = Object.assign(Object.create(backend), { capabilities: { ...backend.capabilities, links: false } });
    expect(
      ranked(await applyEntityEvidence([hit(records[0]!, 1)], { backend: plain, query: 'luna', filter, pool: 3 })),
    ).toEqual(['n0:1.00']);
  });
});

describe('entities through the store', () => {
  it('re-finds entities when content or event time changes, keeping those a model gave', async () => {
    const memory = new AgentMemory({ backend: new InMemoryBackend(), now: () => Date.parse('2026-03-01T00:00:00Z') });
    const m = await memory.remember({
      content: 'Met Jean at the shelter yesterday',
      type: 'user',
      occurredAt: '2023-05-08T10:00:00Z',
      entities: [{ name: 'Hope Shelter', kind: 'place' }],
    });
    expect(m.entities?.map((e) => e.key)).toEqual(['hope shelter', 'jean', 'date:2023-05-07']);
    const moved = await memory.update(m.id, { occurredAt: '2024-01-02T10:00:00Z' });
    expect(moved.entities?.map((e) => e.key)).toEqual(['hope shelter', 'jean', 'date:2024-01-01']);
    expect((await memory.entityMemories({ key: 'date:2023-05-07' })).length).toBe(0);
    expect((await memory.entityMemories({ key: 'date:2024-01-01' })).map((x) => x.id)).toEqual([m.id]);
    const rewritten = await memory.update(m.id, { content: 'Met Maria at the shelter' });
    expect(rewritten.entities?.map((e) => e.key)).toEqual(['hope shelter', 'maria']);
    expect(await memory.entityMemories('Jean')).toEqual([]);
    expect((await memory.history(m.id)).map((h) => h.memory?.entities?.length)).toEqual([3, 3, 2]);
  });

  it('a when-question ranks the memory that says when above an equal match without a time', async () => {
    const memory = new AgentMemory({ backend: new InMemoryBackend(), now: () => Date.parse('2026-03-01T00:00:00Z') });
    await memory.rememberMany([
      {
        content: 'Caroline went to the pottery class with her friends and loved every minute',
        type: 'user',
        occurredAt: '2023-05-08T10:00:00Z',
        id: 'a-plain',
      },
      {
        content: 'Caroline went to the pottery class yesterday',
        type: 'user',
        occurredAt: '2023-05-08T10:00:00Z',
        id: 'b-dated',
      },
    ]);
    const when = await memory.recall('When did Caroline go to the pottery class?', { k: 2, reinforce: false });
    expect(when.map((r) => r.memory.id)).toEqual(['b-dated', 'a-plain']);
    const what = await memory.recall('When did Caroline go to the pottery class?', {
      k: 2,
      reinforce: false,
      dateEvidence: false,
    });
    expect(what.map((r) => r.memory.id)).toEqual(['a-plain', 'b-dated']);
  });
});
