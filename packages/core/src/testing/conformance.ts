// Past ~700 lines as one list: the contract's core cases and the runner that every backend calls;
// the history, maintenance and links cases already stand in their own files.
import assert from 'node:assert/strict';
// The package's own name, not relative paths: the built testing entry imports core instead of bundling a copy.
import {
  AgentMemory,
  AgentMemoryError,
  type BackendCapabilities,
  type BackendRecord,
  HashingEmbedder,
  type MemoryBackend,
} from '@agentmem/core';
import { historyConformanceCases } from './history-conformance';
import { maintenanceConformanceCases } from './maintenance-conformance';
import { linkConformanceCases } from './conformance-links';
import { partialHitsConformanceCases } from './conformance-partial';

export interface ConformanceOptions {
  /** Shown in test names. */
  name: string;
  /** A fresh, empty backend (not yet initialised). */
  create: () => Promise<MemoryBackend>;
  /**
   * For persistent backends: close `backend` and open a new instance on the same
   * storage. Enables the persistence cases.
   */
  reopen?: (backend: MemoryBackend) => Promise<MemoryBackend>;
  /** What the backend claims; the suite checks the claims match behaviour. */
  capabilities: BackendCapabilities;
  /** Records in the multi-page scan case (default 1_250, more than any sane page). */
  scanSize?: number;
}

export interface ConformanceCase {
  name: string;
  run: () => Promise<void>;
  /** Default 60 s; longer for the cases that run an operation over a thousand records many times. */
  timeoutMs?: number;
}

/** A test runner's registration functions (vitest, jest, node:test and mocha all fit). */
export interface TestRegistrar {
  describe: (name: string, fn: () => void) => void;
  it: (name: string, fn: () => Promise<void>, timeout?: number) => void;
}

const DIM = 8;

function unit(...values: number[]): Float32Array {
  const v = new Float32Array(DIM);
  values.forEach((x, i) => {
    v[i] = x;
  });
  const n = Math.hypot(...v);
  return n === 0 ? v : v.map((x) => x / n);
}

function rec(id: string, overrides: Partial<BackendRecord> = {}): BackendRecord {
  return {
    id,
    namespace: 'ns',
    tenant: '',
    text: `record ${id}`,
    vector: unit(1, 0, 0),
    attributes: { kind: 'memory', status: 'active' },
    payload: { id },
    ...overrides,
  };
}

async function withBackend(options: ConformanceOptions, fn: (b: MemoryBackend) => Promise<void>): Promise<void> {
  const backend = await options.create();
  try {
    await backend.init({ dimension: DIM });
    await fn(backend);
  } finally {
    await backend.close().catch(() => {});
  }
}

async function scanAll(b: MemoryBackend, filter: Parameters<MemoryBackend['scan']>[0]['filter'], limit?: number) {
  const out: BackendRecord[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await b.scan({ filter, cursor, limit });
    out.push(...page.records);
    cursor = page.cursor;
    pages++;
    assert.ok(pages < 100_000, 'scan never ended');
  } while (cursor !== undefined);
  return { records: out, pages };
}

/** The backend conformance cases, independent of any test runner. */
export function backendConformanceCases(options: ConformanceOptions): ConformanceCase[] {
  const caps = options.capabilities;
  const cases: ConformanceCase[] = [];
  const add = (name: string, fn: (b: MemoryBackend) => Promise<void>) =>
    cases.push({ name, run: () => withBackend(options, fn) });

  add('declares specificationVersion v1 and the stated capabilities', async (b) => {
    assert.equal(b.specificationVersion, 'v1');
    assert.deepEqual({ ...b.capabilities }, { ...caps });
    // Core reads it to skip writes (recall's reinforcement); a missing entry would mean "writable" silently.
    assert.equal(typeof b.capabilities.readonly, 'boolean', 'capabilities.readonly must be declared (true or false)');
  });

  add('upsert then get returns the record; upsert again overwrites it', async (b) => {
    await b.upsert([rec('a', { text: 'first', payload: { n: 1, nested: { x: [1, 'two', null] } } })]);
    const [got] = await b.get(['a']);
    assert.ok(got, 'record a not found');
    assert.equal(got.text, 'first');
    assert.equal(got.namespace, 'ns');
    assert.deepEqual(got.payload, { n: 1, nested: { x: [1, 'two', null] } });
    assert.equal(got.attributes.kind, 'memory');
    assert.ok(got.vector && got.vector.length === DIM, 'vector not returned by get');
    await b.upsert([rec('a', { text: 'second', payload: { n: 2 } })]);
    const again = await b.get(['a']);
    assert.equal(again.length, 1);
    assert.equal(again[0]!.text, 'second');
    assert.deepEqual(again[0]!.payload, { n: 2 });
    assert.equal(await b.count({ tenant: '' }), 1);
    assert.deepEqual(await b.get(['missing']), []);
  });

  add('patch merges attributes and replaces payload, leaving text and vector', async (b) => {
    await b.upsert([rec('p', { attributes: { kind: 'memory', status: 'active', hits: 1 } })]);
    const changed = await b.patch([
      { id: 'p', attributes: { status: 'pruned' }, payload: { replaced: true } },
      { id: 'nope', attributes: { status: 'x' } },
    ]);
    assert.equal(changed, 1);
    const [got] = await b.get(['p']);
    assert.equal(got!.attributes.status, 'pruned');
    assert.equal(got!.attributes.hits, 1);
    assert.deepEqual(got!.payload, { replaced: true });
    assert.equal(got!.text, 'record p');
    const hits = await b.search({ mode: 'dense', vector: unit(1, 0, 0), filter: { tenant: '' }, k: 1 });
    assert.equal(hits[0]?.record.id, 'p');
  });

  add('delete removes records and reports how many', async (b) => {
    await b.upsert([rec('d1'), rec('d2'), rec('d3')]);
    assert.equal(await b.delete(['d1', 'd3', 'unknown']), 2);
    assert.deepEqual(
      (await b.get(['d1', 'd2', 'd3'])).map((r) => r.id),
      ['d2'],
    );
    const dense = await b.search({ mode: 'dense', vector: unit(1, 0, 0), filter: { tenant: '' }, k: 10 });
    assert.deepEqual(
      dense.map((h) => h.record.id),
      ['d2'],
    );
    if (caps.textSearch) {
      const kw = await b.search({ mode: 'keyword', text: 'record', filter: { tenant: '' }, k: 10 });
      assert.deepEqual(
        kw.map((h) => h.record.id),
        ['d2'],
      );
    }
  });

  add('scan pages through every record in id order with a cursor', async (b) => {
    const n = options.scanSize ?? 1250;
    const batch: BackendRecord[] = [];
    for (let i = 0; i < n; i++) batch.push(rec(`s${String(i).padStart(5, '0')}`, { vector: undefined }));
    for (let i = 0; i < batch.length; i += 500) await b.upsert(batch.slice(i, i + 500));
    const { records, pages } = await scanAll(b, { tenant: '' }, 100);
    assert.equal(records.length, n, 'scan must cover every record');
    assert.equal(new Set(records.map((r) => r.id)).size, n, 'scan returned duplicates');
    assert.ok(pages > 1, 'expected several pages');
    const ids = records.map((r) => r.id);
    assert.deepEqual(ids, [...ids].sort(), 'scan must return records in id order');
    assert.equal(await b.count({ tenant: '' }), n);
    const unpaged = await scanAll(b, { tenant: '' });
    assert.equal(unpaged.records.length, n, 'a scan without limit must still cover every record');
  });

  add('writeMark (optional) stays while nothing is written and moves with every write', async (b) => {
    if (!b.writeMark) return; // core reads its duplicate check again instead
    const before = await b.writeMark();
    await b.get(['w1']);
    await b.scan({ filter: { tenant: '' } });
    assert.equal(await b.writeMark(), before, 'a read must not move the write mark');
    const marks = [before];
    const moved = async (what: string) => {
      const mark = await b.writeMark!();
      assert.ok(!marks.includes(mark), `${what} must move the write mark`);
      marks.push(mark);
    };
    await b.upsert([rec('w1')]);
    await moved('upsert');
    await b.patch([{ id: 'w1', attributes: { status: 'pruned' } }]);
    await moved('patch');
    await b.delete(['w1']);
    await moved('delete');
  });

  add('vectors (optional) gives by id the vectors get gives, and hides what get hides', async (b) => {
    await b.upsert([
      rec('v1', { vector: unit(1, 2, 0) }),
      rec('v2', { vector: unit(0, 1, 3), tenant: 'other' }),
      rec('v3', { vector: undefined }),
      rec('v4', { vector: unit(0, 0, 1) }),
    ]);
    const ids = ['v1', 'v2', 'v3', 'v4', 'missing', 'v1'];
    for (const tenant of [null, '', 'other']) {
      const want = new Map(
        (await b.get(ids, { tenant, withVectors: true })).flatMap((r) => (r.vector ? [[r.id, [...r.vector]]] : [])),
      );
      assert.equal(want.size, tenant === null ? 3 : tenant === '' ? 2 : 1);
      if (!b.vectors) continue; // core falls back to get, checked here
      const got = await b.vectors(ids, { tenant });
      assert.deepEqual(
        new Map([...got].map(([id, v]) => [id, [...v]])),
        want,
        `vectors must give get's vectors by id (tenant ${JSON.stringify(tenant)})`,
      );
    }
    if (b.vectors) assert.deepEqual(await b.vectors([]), new Map());
  });

  add('scanAttributes (optional) gives every matching record once, with the attributes scan gives', async (b) => {
    const batch: BackendRecord[] = [];
    for (let i = 0; i < 240; i++) {
      // Ids out of insertion order, two tenants, a status that the filter excludes, mixed attribute types.
      const attributes = {
        kind: 'memory',
        status: i % 5 === 0 ? 'pruned' : 'active',
        importance: i / 240,
        at: i,
        odd: i % 2 === 1,
        tag: i % 3 === 0 ? null : `t${i % 3}`,
      };
      batch.push(
        rec(`a${String((i * 97) % 240).padStart(3, '0')}`, {
          tenant: i % 4 === 0 ? 'other' : '',
          attributes,
          vector: undefined,
        }),
      );
    }
    await b.upsert(batch);
    const filter = { tenant: null, where: { kind: 'memory', status: 'active' } };
    const want = (await scanAll(b, filter)).records
      .map(({ id, namespace, tenant, attributes }) => ({ id, namespace, tenant, attributes }))
      .sort((x, y) => (x.id < y.id ? -1 : 1));
    assert.equal(want.length, 192);
    if (!b.scanAttributes) return; // core falls back to scan, checked above
    const got: { id: string; namespace: string; tenant: string; attributes: unknown }[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await b.scanAttributes({ filter, cursor, limit: 25 });
      assert.ok(page.records.length <= 25, 'a page must honour limit');
      got.push(...page.records);
      cursor = page.cursor;
      assert.ok(++pages < 1000, 'scanAttributes never ended');
    } while (cursor !== undefined);
    assert.ok(pages > 1, 'expected several pages');
    assert.deepEqual(
      got.sort((x, y) => (x.id < y.id ? -1 : 1)),
      want,
      'scanAttributes must give each matching record once, with the same scope and attributes as scan',
    );
    // Narrowed to some attributes: each record carries at least those it has (null ones may be left out).
    const named = ['importance', 'odd', 'tag'] as const;
    const narrowed: { id: string; attributes: Record<string, unknown> }[] = [];
    cursor = undefined;
    do {
      const page = await b.scanAttributes({ filter, cursor, limit: 50, attributes: named });
      narrowed.push(...page.records);
      cursor = page.cursor;
    } while (cursor !== undefined);
    assert.deepEqual(
      narrowed.map((r) => r.id).sort(),
      want.map((r) => r.id),
    );
    const full = new Map(want.map((r) => [r.id, r.attributes]));
    for (const r of narrowed) {
      for (const key of named) {
        const value = full.get(r.id)![key] ?? null;
        assert.deepEqual(r.attributes[key] ?? null, value, `${r.id}.${key} must be what scan gives`);
      }
    }
  });

  add(
    'patchLogged (optional) changes only what still matches, merges payload keys and writes the log records',
    async (b) => {
      if (!b.patchLogged) return; // core falls back to get + patch + upsert
      const attributes = (i: number) => ({ kind: 'memory', status: 'active', importance: i / 10, at: 1000 + i });
      await b.upsert(
        [0, 1, 2, 3].map((i) =>
          rec(`p${i}`, {
            tenant: i === 1 ? 'other' : '',
            attributes: attributes(i),
            payload: { id: `p${i}`, keep: i },
          }),
        ),
      );
      const log = {
        namespace: '_log',
        attributes: { kind: 'history', action: 'prune', at: 7 },
        payload: { id: '', memoryId: '', action: 'prune', detail: 'why' },
        keys: { id: 'id', ref: 'memoryId', copy: 'memory' },
      };
      const patch = (i: number, expected = attributes(i)) => ({
        id: `p${i}`,
        expect: { status: expected.status, importance: expected.importance, at: expected.at },
        payload: { prunedAt: `t${i}` },
        logId: `log${i}`,
      });
      await assert.rejects(
        b.patchLogged({ patches: [patch(0), patch(0)], attributes: { status: 'pruned' }, log }),
        (e: unknown) => AgentMemoryError.hasCode(e, 'INVALID_INPUT'),
        'the same id twice must be refused',
      );
      // p2 changed since it was read (another `at`), p9 does not exist: both are left alone, without a log.
      const changed = await b.patchLogged({
        patches: [patch(0), patch(1), patch(2, { ...attributes(2), at: 1 }), { ...patch(9), id: 'p9' }],
        attributes: { status: 'pruned' },
        log,
      });
      assert.deepEqual([...changed].sort(), ['p0', 'p1']);
      const byId = new Map(
        (await b.get(['p0', 'p1', 'p2', 'p3', 'log0', 'log1', 'log2', 'log9'])).map((r) => [r.id, r]),
      );
      assert.deepEqual([...byId.keys()].sort(), ['log0', 'log1', 'p0', 'p1', 'p2', 'p3']);
      for (const i of [0, 1]) {
        const r = byId.get(`p${i}`)!;
        assert.deepEqual(r.attributes, { ...attributes(i), status: 'pruned' }, 'attributes are merged');
        assert.deepEqual(
          r.payload,
          { id: `p${i}`, keep: i, prunedAt: `t${i}` },
          'payload keys are merged, not replaced',
        );
        assert.equal(r.text, `record p${i}`);
        const entry = byId.get(`log${i}`)!;
        assert.deepEqual(
          { namespace: entry.namespace, tenant: entry.tenant, text: entry.text, vector: entry.vector },
          { namespace: '_log', tenant: i === 1 ? 'other' : '', text: '', vector: undefined },
          "a log record is in the changed record's tenant, without text or vector",
        );
        assert.deepEqual(entry.attributes, { ...log.attributes, memoryId: `p${i}` });
        assert.deepEqual(entry.payload, { ...log.payload, id: `log${i}`, memoryId: `p${i}`, memory: r.payload });
      }
      for (const i of [2, 3]) {
        assert.deepEqual(byId.get(`p${i}`)!.attributes, attributes(i), 'a record whose expect failed is unchanged');
        assert.deepEqual(byId.get(`p${i}`)!.payload, { id: `p${i}`, keep: i });
      }
      assert.equal(await b.count({ tenant: null, where: { kind: 'memory', status: 'pruned' } }), 2);
      assert.equal(await b.count({ tenant: null, namespaces: ['_log'] }), 2);
    },
  );

  add('namespaces are isolated and listed with counts', async (b) => {
    await b.upsert([rec('n1', { namespace: 'a' }), rec('n2', { namespace: 'b' }), rec('n3', { namespace: 'b' })]);
    const dense = await b.search({
      mode: 'dense',
      vector: unit(1, 0, 0),
      filter: { tenant: '', namespaces: ['a'] },
      k: 10,
    });
    assert.deepEqual(
      dense.map((h) => h.record.id),
      ['n1'],
    );
    assert.equal(await b.count({ tenant: '', namespaces: ['b'] }), 2);
    assert.equal(await b.count({ tenant: '', namespaces: [] }), 0, 'an empty namespace list matches nothing');
    const listed = (await b.namespaces({ tenant: '' })).map((n) => `${n.namespace}=${n.count}`).sort();
    assert.deepEqual(listed, ['a=1', 'b=2']);
  });

  add('tenants never see each other, whatever the content and namespace', async (b) => {
    const same = { namespace: 'user', text: 'alice likes green tea', vector: unit(1, 1, 0) };
    await b.upsert([rec('ta', { ...same, tenant: 'alice' }), rec('tb', { ...same, tenant: 'bob' })]);
    for (const [tenant, id] of [
      ['alice', 'ta'],
      ['bob', 'tb'],
    ] as const) {
      const filter = { tenant, namespaces: ['user'] };
      const dense = await b.search({ mode: 'dense', vector: unit(1, 1, 0), filter, k: 10 });
      assert.deepEqual(
        dense.map((h) => h.record.id),
        [id],
      );
      if (caps.textSearch) {
        const kw = await b.search({ mode: 'keyword', text: 'green tea', filter, k: 10 });
        assert.deepEqual(
          kw.map((h) => h.record.id),
          [id],
        );
      }
      assert.deepEqual(
        (await scanAll(b, filter)).records.map((r) => r.id),
        [id],
      );
      assert.equal(await b.count(filter), 1);
      assert.deepEqual(
        (await b.get(['ta', 'tb'], { tenant })).map((r) => r.id),
        [id],
      );
    }
    assert.equal(await b.count({ tenant: null }), 2, 'tenant null means every tenant');
    assert.equal(await b.count({ tenant: '' }), 0);
  });

  add('dense search orders by cosine similarity and honours k', async (b) => {
    await b.upsert([
      rec('far', { vector: unit(0, 0, 1) }),
      rec('near', { vector: unit(1, 0.1, 0) }),
      rec('mid', { vector: unit(1, 1, 0) }),
      rec('novec', { vector: undefined }),
    ]);
    const hits = await b.search({ mode: 'dense', vector: unit(1, 0, 0), filter: { tenant: '' }, k: 3 });
    assert.deepEqual(
      hits.map((h) => h.record.id),
      ['near', 'mid', 'far'],
    );
    assert.ok(Math.abs(hits[0]!.score - 0.995) < 0.01, `cosine of near should be ~0.995, got ${hits[0]!.score}`);
    assert.ok(hits[0]!.score >= hits[1]!.score && hits[1]!.score >= hits[2]!.score);
    const two = await b.search({ mode: 'dense', vector: unit(1, 0, 0), filter: { tenant: '' }, k: 2 });
    assert.equal(two.length, 2);
  });

  if (caps.textSearch) {
    add('keyword search ranks by BM25-style relevance', async (b) => {
      await b.upsert([
        rec('k1', { text: 'The staging cluster runs Kubernetes 1.29' }),
        rec('k2', { text: 'Alice prefers dark mode in every editor' }),
        rec('k3', { text: 'Deploy to staging only after the staging smoke tests pass' }),
      ]);
      const hits = await b.search({ mode: 'keyword', text: 'staging deploy', filter: { tenant: '' }, k: 10 });
      assert.equal(hits[0]?.record.id, 'k3');
      assert.ok(hits.some((h) => h.record.id === 'k1'));
      assert.ok(!hits.some((h) => h.record.id === 'k2'), 'a record without any query term must not match');
      assert.ok(hits.every((h) => h.score > 0));
      const none = await b.search({ mode: 'keyword', text: 'zebra', filter: { tenant: '' }, k: 10 });
      assert.equal(none.length, 0);
      const odd = await b.search({ mode: 'keyword', text: 'AND OR "NOT" (*) : -', filter: { tenant: '' }, k: 10 });
      assert.ok(Array.isArray(odd), 'query syntax characters must not throw');
    });
  }

  if (caps.textSearch) {
    add('keyword search finds a record by its context, ranked below a record matching in its text', async (b) => {
      await b.upsert([
        rec('c1', { text: 'Yes, every Saturday morning', context: 'Do you still go to the pottery class?' }),
        rec('c2', { text: 'The pottery class moved to the new studio downtown' }),
        rec('c3', { text: 'Nothing about that here' }),
      ]);
      const hits = await b.search({ mode: 'keyword', text: 'pottery class', filter: { tenant: '' }, k: 10 });
      assert.deepEqual(
        hits.map((h) => h.record.id),
        ['c2', 'c1'],
        'a context match must be found, and rank below a text match',
      );
      const [got] = await b.get(['c1']);
      assert.equal(got?.context, 'Do you still go to the pottery class?', 'context must round-trip');
      assert.equal(got?.text, 'Yes, every Saturday morning', 'context must not leak into text');
      await b.upsert([rec('c1', { text: 'Yes, every Saturday morning' })]);
      const [plain] = await b.get(['c1']);
      assert.equal(plain?.context, undefined, 'an overwrite without context removes it');
      const after = await b.search({ mode: 'keyword', text: 'pottery', filter: { tenant: '' }, k: 10 });
      assert.deepEqual(
        after.map((h) => h.record.id),
        ['c2'],
        'a removed context must leave the keyword index',
      );
    });
  }

  if (caps.nativeHybrid) {
    add('native hybrid search fuses dense and keyword results', async (b) => {
      await b.upsert([
        rec('h1', { text: 'postgres database settings', vector: unit(0, 1, 0) }),
        rec('h2', { text: 'unrelated words here', vector: unit(1, 0, 0) }),
        rec('h3', { text: 'nothing to see', vector: unit(0, 0, 1) }),
      ]);
      const hits = await b.search({
        mode: 'hybrid',
        vector: unit(1, 0, 0),
        text: 'postgres',
        filter: { tenant: '' },
        k: 3,
        weights: { dense: 1, keyword: 1 },
      });
      const ids = hits.map((h) => h.record.id);
      assert.ok(ids.includes('h1') && ids.includes('h2'), `both signals should contribute, got ${ids}`);
      assert.ok(ids.indexOf('h3') === -1 || ids.indexOf('h3') > ids.indexOf('h1'));
    });
  }

  add('filters: equality, in, notIn, ne, ranges, missing attributes', async (b) => {
    await b.upsert([
      rec('f1', { attributes: { kind: 'memory', type: 'user', importance: 0.9, status: 'active' } }),
      rec('f2', { attributes: { kind: 'memory', type: 'project', importance: 0.4, status: 'superseded' } }),
      rec('f3', { attributes: { kind: 'memory', type: 'feedback', importance: 0.1, status: 'active', flag: true } }),
      rec('f4', { attributes: { kind: 'history', memoryId: 'f1' } }),
    ]);
    const ids = async (where: NonNullable<Parameters<MemoryBackend['count']>[0]['where']>) =>
      (await scanAll(b, { tenant: '', where })).records.map((r) => r.id).sort();
    assert.deepEqual(await ids({ kind: 'memory', status: 'active' }), ['f1', 'f3']);
    assert.deepEqual(await ids({ type: { in: ['user', 'project'] } }), ['f1', 'f2']);
    assert.deepEqual(await ids({ kind: 'memory', type: { notIn: ['user'] } }), ['f2', 'f3']);
    assert.deepEqual(await ids({ kind: { ne: 'history' } }), ['f1', 'f2', 'f3']);
    assert.deepEqual(await ids({ importance: { gte: 0.4, lt: 0.95 } }), ['f1', 'f2']);
    assert.deepEqual(await ids({ importance: { gt: 0.4 } }), ['f1']);
    assert.deepEqual(await ids({ flag: true }), ['f3']);
    assert.deepEqual(await ids({ kind: 'memory', flag: null }), ['f1', 'f2'], 'missing attributes equal null');
    assert.deepEqual(await ids({ memoryId: 'f1' }), ['f4']);
    const dense = await b.search({
      mode: 'dense',
      vector: unit(1, 0, 0),
      filter: { tenant: '', where: { status: 'active', kind: 'memory' } },
      k: 10,
    });
    assert.deepEqual(dense.map((h) => h.record.id).sort(), ['f1', 'f3'], 'search must filter inside the query');
    assert.equal(await b.count({ tenant: '', where: { kind: 'memory' } }), 3);
  });

  add('filtered dense search still returns k results when most records are filtered out', async (b) => {
    const batch: BackendRecord[] = [];
    for (let i = 0; i < 300; i++) {
      batch.push(rec(`x${i}`, { vector: unit(1, i / 300, 0), attributes: { kind: 'memory', keep: i % 50 === 0 } }));
    }
    await b.upsert(batch);
    const hits = await b.search({
      mode: 'dense',
      vector: unit(1, 0, 0),
      filter: { tenant: '', where: { keep: true } },
      k: 5,
    });
    assert.equal(hits.length, 5);
    assert.ok(hits.every((h) => h.record.attributes.keep === true));
  });

  add('meta values are stored and read back', async (b) => {
    assert.equal(await b.getMeta('nothing'), undefined);
    await b.setMeta('embedder.id', 'x');
    await b.setMeta('embedder.id', 'y');
    assert.equal(await b.getMeta('embedder.id'), 'y');
  });

  add('refuses vectors of another dimension', async (b) => {
    await assert.rejects(
      () => b.init({ dimension: DIM + 1 }),
      (e: unknown) => AgentMemoryError.hasCode(e, 'DIMENSION_MISMATCH'),
    );
    await assert.rejects(
      () => b.upsert([rec('bad', { vector: new Float32Array(DIM + 3) })]),
      (e: unknown) => AgentMemoryError.hasCode(e, 'DIMENSION_MISMATCH') || AgentMemoryError.hasCode(e, 'INVALID_INPUT'),
    );
    assert.equal(await b.count({ tenant: null }), 0, 'a refused write must change nothing');
  });

  if (caps.transactions) {
    add('a failed transaction leaves everything as it was', async (b) => {
      await b.upsert([rec('keep', { text: 'original' })]);
      await assert.rejects(
        () =>
          b.transaction!(async () => {
            await b.upsert([rec('keep', { text: 'changed' }), rec('new1')]);
            await b.delete(['keep']);
            await b.setMeta('m', '1');
            throw new Error('injected failure');
          }),
        /injected failure/,
      );
      const all = (await scanAll(b, { tenant: null })).records;
      assert.deepEqual(
        all.map((r) => [r.id, r.text]),
        [['keep', 'original']],
      );
      assert.equal(await b.getMeta('m'), undefined);
      const committed = await b.transaction!(async () => {
        await b.upsert([rec('new2')]);
        return 42;
      });
      assert.equal(committed, 42);
      assert.equal((await b.get(['new2'])).length, 1);
    });
  }

  if (caps.persistent && options.reopen) {
    cases.push({
      name: 'records, vectors and meta survive close and reopen',
      run: async () => {
        const first = await options.create();
        await first.init({ dimension: DIM });
        await first.upsert([rec('r1', { text: 'persisted text', tenant: 't', namespace: 'user' })]);
        await first.setMeta('k', 'v');
        const second = await options.reopen!(first);
        try {
          await second.init({ dimension: DIM });
          const [r] = await second.get(['r1']);
          assert.equal(r?.text, 'persisted text');
          assert.equal(r?.tenant, 't');
          assert.equal(await second.getMeta('k'), 'v');
          const hits = await second.search({ mode: 'dense', vector: unit(1, 0, 0), filter: { tenant: 't' }, k: 1 });
          assert.equal(hits[0]?.record.id, 'r1');
          await assert.rejects(
            () => second.init({ dimension: DIM * 2 }),
            (e: unknown) => AgentMemoryError.hasCode(e, 'DIMENSION_MISMATCH'),
          );
        } finally {
          await second.close();
        }
      },
    });
  }

  if (caps.partialHits) partialHitsConformanceCases({ add, rec, unit });

  if (caps.links) {
    linkConformanceCases({
      add,
      rec,
      create: options.create,
      transactions: caps.transactions,
      push: (c) => cases.push(c),
    });
  }

  // Through MemoryStore: the behaviour users rely on, on this backend.
  cases.push({
    name: 'MemoryStore on this backend: dedup, hybrid recall, tenant isolation, inactive memories hidden',
    run: async () => {
      const backend = await options.create();
      const embedder = new HashingEmbedder({ dimension: 64 });
      try {
        const alice = new AgentMemory({ backend, embedder, tenant: 'alice' });
        const bob = new AgentMemory({ backend, embedder, tenant: 'bob' });
        const a1 = await alice.remember({ content: 'The staging database is PostgreSQL 16', type: 'project' });
        const again = await alice.remember({ content: '  the staging database is postgresql 16 ', type: 'project' });
        assert.equal(again.id, a1.id, 'same content twice must be one memory');
        await alice.remember({ content: 'Alice prefers tabs over spaces', type: 'user' });
        await bob.remember({ content: 'The staging database is PostgreSQL 16', type: 'project' });
        const results = await alice.recall('which database runs on staging?', { k: 5 });
        assert.equal(results[0]?.memory.id, a1.id);
        assert.ok(
          results.every((r) => r.memory.tenant === 'alice'),
          'tenant A must never see tenant B',
        );
        assert.ok(results[0]!.signals.keyword || results[0]!.signals.dense);
        const bobs = await bob.recall('staging database', { k: 5 });
        assert.equal(bobs.length, 1);
        assert.notEqual(bobs[0]!.memory.id, a1.id);
        await alice.patchMemories([{ ...a1, supersededBy: 'other' }], 'supersede');
        const after = await alice.recall('staging database', { k: 5 });
        assert.ok(!after.some((r) => r.memory.id === a1.id), 'superseded memories leave recall');
        const withOld = await alice.recall('staging database', { k: 5, includeSuperseded: true });
        assert.ok(withOld.some((r) => r.memory.id === a1.id));
        assert.equal((await alice.history(a1.id)).map((h) => h.action).join(','), 'create,supersede');
      } finally {
        await backend.close().catch(() => {});
      }
    },
  });

  cases.push({
    name: 'MemoryStore on this backend: occurredAt round trip, after/before, context kept out of content',
    run: async () => {
      const backend = await options.create();
      const embedder = new HashingEmbedder({ dimension: 64 });
      try {
        const store = new AgentMemory({ backend, embedder, now: () => Date.parse('2026-03-01T00:00:00Z') });
        const [jan, may, next] = await store.rememberMany([
          { content: 'Melanie ran a charity race for mental health', type: 'user', occurredAt: '2023-01-20T10:00:00Z' },
          {
            content: 'Melanie signed up for a pottery class',
            type: 'user',
            occurredAt: new Date('2023-05-08T13:56:00Z'),
            context: 'Caroline asked what Melanie does to relax',
          },
          { content: 'Melanie ran a marathon in Boston', type: 'user', occurredAt: '2024-04-15' },
        ]);
        assert.equal(may!.occurredAt, '2023-05-08T13:56:00.000Z');
        assert.equal(next!.occurredAt, '2024-04-15T00:00:00.000Z');
        assert.equal((await store.get(jan!.id))?.occurredAt, '2023-01-20T10:00:00.000Z', 'occurredAt round trip');
        const [created] = await store.history(may!.id);
        assert.equal(created?.memory.occurredAt, may!.occurredAt, 'history keeps occurredAt');
        assert.equal(created?.memory.context, 'Caroline asked what Melanie does to relax');
        const ids = async (o: { after?: string; before?: string }) =>
          (await store.recall('Melanie ran', { k: 10, reinforce: false, ...o })).map((r) => r.memory.id).sort();
        assert.deepEqual(await ids({ after: '2023-05-01' }), [may!.id, next!.id].sort(), 'after is inclusive');
        assert.deepEqual(await ids({ before: '2023-05-08T13:56:00Z' }), [jan!.id], 'before is exclusive');
        assert.deepEqual(await ids({ after: '2023-01-01', before: '2024-01-01' }), [jan!.id, may!.id].sort());
        // Context finds a memory, is not its content, and is no part of the duplicate check.
        const relax = await store.recall('what does Melanie do to relax', { k: 1, reinforce: false });
        assert.equal(relax[0]?.memory.id, may!.id);
        assert.equal(relax[0]?.memory.content, 'Melanie signed up for a pottery class');
        const again = await store.remember({
          content: 'Melanie signed up for a pottery class',
          type: 'user',
          context: 'another conversation',
        });
        assert.equal(again.id, may!.id, 'same content with another context is the same memory');
        await assert.rejects(
          () => store.recall('x', { after: 'last tuesday' }),
          (e: unknown) => AgentMemoryError.hasCode(e, 'INVALID_INPUT'),
        );
      } finally {
        await backend.close().catch(() => {});
      }
    },
  });

  cases.push(...maintenanceConformanceCases(options));
  cases.push(...historyConformanceCases(options));
  return cases;
}

/** Registers the conformance cases with a test runner: `runBackendConformance(opts, { describe, it })`. */
export function runBackendConformance(options: ConformanceOptions, runner: TestRegistrar): void {
  runner.describe(`MemoryBackend conformance: ${options.name}`, () => {
    for (const c of backendConformanceCases(options)) runner.it(c.name, c.run, c.timeoutMs ?? 60_000);
  });
}
