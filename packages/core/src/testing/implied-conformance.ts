import assert from 'node:assert/strict';
// The package's own name, not relative paths: the built testing entry imports core instead of bundling a copy.
import type { AttributeValue, BackendRecord, JsonObject, LoggedPatches, MemoryBackend } from '@agentmem/core';
import type { ConformanceCase, ConformanceOptions } from './conformance';

const DIM = 8;

/**
 * `patchLogged` with `implied` (backends declaring `capabilities.loggedImplied`): the log record a
 * marked record implies is written from the record as it was before the change, its marker unset;
 * a marked record without an implied id is left alone. Run twice: with attributes a backend may
 * keep as pending changes (SQLite's deferred path) and with a null value, which it writes at once.
 */
export function impliedConformanceCases(options: ConformanceOptions): ConformanceCase[] {
  const shapes: [string, Record<string, AttributeValue>][] = [
    ['status only', { status: 'pruned' }],
    ['with a null attribute', { status: 'pruned', reason: null }],
  ];
  return shapes.map(([shape, attributes]) => ({
    name: `patchLogged (optional) with implied log records writes them first, from the record before its change (${shape})`,
    run: () => impliedCase(options, attributes),
  }));
}

async function impliedCase(options: ConformanceOptions, set: Record<string, AttributeValue>): Promise<void> {
  const backend = await options.create();
  try {
    await backend.init({ dimension: DIM });
    if (!backend.patchLogged || backend.capabilities.loggedImplied !== true) return; // core writes them itself
    await run(backend, set);
  } finally {
    await backend.close().catch(() => {});
  }
}

async function run(b: MemoryBackend, set: Record<string, AttributeValue>): Promise<void> {
  const patchLogged = b.patchLogged!.bind(b);
  // m0 marked, with an agent; m1 not marked; m2 marked but no implied id given; m3 marked, agent ''
  // and no createdAt; m4 marked, an old record already holds its implied id (overwritten).
  const memory = (
    i: number,
    marked: boolean,
    extra: JsonObject = {},
    attributes: Record<string, AttributeValue> = {},
  ) => {
    const payload: JsonObject = {
      id: `m${i}`,
      content: `fact ${i}`,
      createdAt: `2026-01-0${i + 1}T00:00:00.000Z`,
      ...extra,
    };
    const record: BackendRecord = {
      id: `m${i}`,
      namespace: 'ns',
      tenant: i === 1 ? 'other' : 't',
      text: `fact ${i}`,
      attributes: {
        kind: 'memory',
        status: 'active',
        importance: 0.1,
        createdAt: Date.parse(payload.createdAt as string),
        ...(marked ? { marked: true } : {}),
        ...attributes,
      },
      payload,
    };
    return record;
  };
  const records = [
    memory(0, true, { agentId: 'agent-1' }, { agentId: 'agent-1' }),
    memory(1, false),
    memory(2, true),
    memory(3, true, { agentId: '', createdAt: null }, { createdAt: null }),
    memory(4, true),
  ];
  await b.upsert([
    ...records,
    {
      id: 'implied-4',
      namespace: '_log',
      tenant: 't',
      text: '',
      attributes: { kind: 'log', action: 'stale' },
      payload: { stale: true },
    },
  ]);
  const log: LoggedPatches['log'] = {
    namespace: '_log',
    attributes: { kind: 'log', action: 'prune', at: 7 },
    payload: { id: '', memoryId: '', action: 'prune' },
    keys: { id: 'id', ref: 'memoryId', copy: 'memory' },
  };
  const implied: NonNullable<LoggedPatches['implied']> = {
    marker: 'marked',
    namespace: '_log',
    attributes: { kind: 'log', memoryId: '', action: 'create', at: 0 },
    payload: { id: '', memoryId: '', action: 'create', at: '' },
    keys: { id: 'id', ref: 'memoryId', copy: 'memory' },
    fromAttributes: { at: 'createdAt' },
    fromPayload: { at: 'createdAt', agentId: 'agentId' },
  };
  const changed = await patchLogged({
    patches: records.map((r, i) => ({
      id: r.id,
      expect: { status: 'active', importance: 0.1 },
      payload: { prunedAt: 'later' },
      logId: `log-${i}`,
      ...(i === 2 ? {} : { impliedId: `implied-${i}` }),
    })),
    attributes: set,
    log,
    implied,
  });
  assert.deepEqual(
    [...changed].sort(),
    ['m0', 'm1', 'm3', 'm4'],
    'a marked record without an implied id is left alone',
  );
  const ids = [
    ...records.map((r) => r.id),
    ...records.map((_, i) => `log-${i}`),
    ...records.map((_, i) => `implied-${i}`),
  ];
  const byId = new Map((await b.get(ids, { tenant: null })).map((r) => [r.id, r]));
  assert.deepEqual(
    [...byId.keys()].sort(),
    ['implied-0', 'implied-3', 'implied-4', 'log-0', 'log-1', 'log-3', 'log-4', 'm0', 'm1', 'm2', 'm3', 'm4'],
    'an implied record for each changed marked record, none for the others',
  );
  const given = new Map(records.map((r) => [r.id, r]));
  for (const i of [0, 3, 4]) {
    const before = given.get(`m${i}`)!;
    const after = byId.get(`m${i}`)!;
    assert.equal(after.attributes.marked, false, 'the change unsets the marker');
    assert.deepEqual(after.attributes, { ...before.attributes, ...set, marked: false });
    assert.deepEqual(after.payload, { ...before.payload, prunedAt: 'later' });
    const entry = byId.get(`implied-${i}`)!;
    assert.deepEqual(
      { namespace: entry.namespace, tenant: entry.tenant, text: entry.text, vector: entry.vector },
      { namespace: '_log', tenant: 't', text: '', vector: undefined },
      "an implied record is in the changed record's tenant, without text or vector",
    );
    const createdAt = before.payload.createdAt;
    // m3: createdAt null and agentId '': their keys are left out.
    const { at: _a, ...withoutAt } = implied.attributes;
    assert.deepEqual(
      entry.attributes,
      i === 3
        ? { ...withoutAt, memoryId: `m${i}` }
        : { ...implied.attributes, memoryId: `m${i}`, at: Date.parse(createdAt as string) },
    );
    const { at: _p, ...payloadWithoutAt } = implied.payload;
    assert.deepEqual(
      entry.payload,
      {
        ...(i === 3 ? payloadWithoutAt : { ...implied.payload, at: createdAt }),
        id: `implied-${i}`,
        memoryId: `m${i}`,
        memory: before.payload,
        ...(i === 0 ? { agentId: 'agent-1' } : {}),
      },
      'the copy is the payload before the change',
    );
    // The change's own log record is as without `implied`.
    assert.deepEqual(byId.get(`log-${i}`)!.payload, {
      ...log.payload,
      id: `log-${i}`,
      memoryId: `m${i}`,
      memory: after.payload,
    });
  }
  const m1 = byId.get('m1')!;
  assert.equal('marked' in m1.attributes, false, 'an unmarked record gets no marker');
  assert.deepEqual(byId.get('m2')!.attributes, given.get('m2')!.attributes, 'the left-alone record is unchanged');
  assert.deepEqual(byId.get('m2')!.payload, given.get('m2')!.payload);
  assert.equal(await b.count({ tenant: null, namespaces: ['_log'], where: { action: 'create' } }), 3);
}
