import { AgentMemoryError, type BackendRecord, cosineSimilarity, HashingEmbedder, InMemoryBackend } from '@agentmem/core';
import { runBackendConformance, seededRandom } from '@agentmem/core/testing';
import {
  createPostgresMemory,
  keywordStatement,
  MIGRATIONS,
  PostgresBackend,
  type PostgresBackendOptions,
  SCHEMA_VERSION,
  termsVector,
} from '@agentmem/postgres';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { postgresStores, unit, waitForServer } from './helpers';

/** Everything a Postgres server must pass: the conformance suite and this backend's own behaviour. */
export function postgresSuite(url: () => string, label: string): void {
  const stores = postgresStores(url);
  beforeAll(() => waitForServer(url()), 180_000);
  afterAll(() => stores.dropAll());

  runBackendConformance(
    {
      name: `PostgresBackend (${label})`,
      create: async () => stores.backend(),
      reopen: async (backend) => {
        await backend.close();
        const { schema, table } = (backend as PostgresBackend).names;
        return new PostgresBackend({ connectionString: url(), schema, table, maxConnections: 4 });
      },
      capabilities: {
        nativeHybrid: false,
        textSearch: true,
        transactions: true,
        persistent: true,
        snapshot: false,
        readonly: false,
        links: true,
      },
    },
    { describe, it },
  );
}

/** The backend's own behaviour beyond the conformance suite. */
export function postgresBehaviourSuite(
  url: () => string,
  options: {
    /** PGlite is one session behind a multiplexer: a reader waits for an open transaction instead of reading around it. */
    singleSession: boolean;
  },
): void {
  const stores = postgresStores(url);
  beforeAll(() => waitForServer(url()), 180_000);
  afterAll(() => stores.dropAll());
  const open: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    for (const b of open.splice(0)) await b.close().catch(() => {});
  });
  const backend = (options: Partial<PostgresBackendOptions> = {}) => {
    const b = stores.backend(options);
    open.push(b);
    return b;
  };

  it('creates its tables at SCHEMA_VERSION once, even when two processes open the same table together', async () => {
    const a = backend();
    const b = backend({ schema: a.names.schema });
    await Promise.all([a.init({ dimension: 4 }), b.init({ dimension: 4 })]);
    const client = new pg.Client({ connectionString: url() });
    await client.connect();
    try {
      const rows = await client.query(`SELECT version FROM ${a.names.migrations} ORDER BY version`);
      expect(rows.rows.map((r) => r.version)).toEqual(MIGRATIONS.map((m) => m.version));
      expect(SCHEMA_VERSION).toBe(MIGRATIONS.at(-1)!.version);
      const indexes = await client.query('SELECT indexdef FROM pg_indexes WHERE schemaname = $1', [a.names.schema]);
      const defs = indexes.rows.map((r) => r.indexdef as string).join('\n');
      expect(defs).toMatch(/USING hnsw \(embedding vector_cosine_ops\)/);
      expect(defs).toMatch(/USING gin \(terms\)/);
      expect(defs).toMatch(/\(tenant, namespace, id\)/);
      expect(defs).toMatch(/\(tenant, namespace, occurred_at\)/);
    } finally {
      await client.end();
    }
  });

  it('refuses a table migrated by a newer version, changing nothing', async () => {
    const a = backend();
    await a.init({ dimension: 4 });
    await a.upsert([{ id: 'x', namespace: 'n', tenant: '', text: 'kept', attributes: {}, payload: {} }]);
    const client = new pg.Client({ connectionString: url() });
    await client.connect();
    try {
      await client.query(`INSERT INTO ${a.names.migrations} (version, description) VALUES (99, 'from the future')`);
      const newer = backend({ schema: a.names.schema });
      const error = await newer.count({ tenant: null }).catch((e: unknown) => e);
      expect(AgentMemoryError.hasCode(error, 'UNSUPPORTED_FORMAT')).toBe(true);
      expect((error as Error).message).toContain('Upgrade @agentmem/postgres');
      const rows = await client.query(`SELECT id FROM ${a.names.records}`);
      expect(rows.rows).toEqual([{ id: 'x' }]);
    } finally {
      await client.end();
    }
  });

  it('keyword search ranks and scores like core BM25F (the in-memory backend) on the same records, context included', async () => {
    const random = seededRandom(7);
    const vocab = ['deploy', 'staging', 'database', 'postgres', 'cluster', 'tea', 'green', 'editor', 'tabs', 'review'];
    const words = (min: number, spread: number) =>
      Array.from(
        { length: min + Math.floor(random() * spread) },
        () => vocab[Math.floor(random() * vocab.length)],
      ).join(' ');
    const records: BackendRecord[] = Array.from({ length: 120 }, (_, i) => ({
      id: `k${String(i).padStart(3, '0')}`,
      namespace: i % 3 === 0 ? 'a' : 'b',
      tenant: i % 5 === 0 ? 'other' : '',
      // Some records have only context, some only text, most both or neither.
      text: i % 11 === 0 ? '' : words(3, 12),
      ...(i % 2 === 0 ? { context: words(2, 20) } : {}),
      attributes: { status: i % 7 === 0 ? 'pruned' : 'active' },
      payload: {},
    }));
    const pgb = backend();
    await pgb.init({ dimension: 4 });
    await pgb.upsert(records);
    const reference = new InMemoryBackend();
    await reference.init({ dimension: 4 });
    await reference.upsert(records);
    for (const text of ['deploy staging', 'green tea editor', 'postgres', 'review the cluster database']) {
      const request = {
        mode: 'keyword' as const,
        text,
        k: 10,
        filter: { tenant: '', namespaces: ['b'], where: { status: 'active' } },
      };
      const ours = await pgb.search(request);
      const theirs = await reference.search(request);
      expect(ours.map((h) => h.record.id)).toEqual(theirs.map((h) => h.record.id));
      for (const [i, h] of ours.entries()) expect(h.score).toBeCloseTo(theirs[i]!.score, 6);
    }
  });

  it('keyword search reads the records once whatever the planner estimates: a word in most records costs one pass, not one per match', async () => {
    // No ANALYZE, as right after a bulk load: the planner guesses one row everywhere. Inlined, the
    // statistics aggregate then ran once per matching record (minutes for a one-word query at 10k).
    const pgb = backend();
    await pgb.init({ dimension: 4 });
    const random = seededRandom(3);
    const words = ['alpha', 'beta', 'gamma', 'delta', 'epsilon'];
    await pgb.upsert(
      Array.from({ length: 300 }, (_, i) => ({
        id: `m${i}`,
        namespace: 'user',
        tenant: '',
        text: `common ${words[Math.floor(random() * words.length)]} ${i % 4 === 0 ? 'common' : ''}`,
        attributes: { kind: 'memory', status: 'active' },
        payload: {},
      })),
    );
    const filter = { tenant: '', namespaces: ['user', 'feedback'], where: { kind: 'memory', status: 'active' } };
    const statement = keywordStatement(pgb.names.records, 'common', filter, 50)!;
    const client = new pg.Client({ connectionString: url() });
    await client.connect();
    try {
      const explained = await client.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${statement.text}`, statement.values);
      type PlanNode = { 'Node Type': string; 'Relation Name'?: string; 'Actual Loops': number; Plans?: PlanNode[] };
      const nodes: PlanNode[] = [];
      const walk = (n: PlanNode) => {
        nodes.push(n);
        for (const child of n.Plans ?? []) walk(child);
      };
      walk(explained.rows[0]['QUERY PLAN'][0].Plan);
      // Aggregates and scans of the whole table run once; only the final lookups of the top k repeat.
      const repeated = nodes.filter(
        (n) =>
          n['Actual Loops'] > 1 &&
          (n['Node Type'].includes('Aggregate') || (n['Relation Name'] && !n['Node Type'].startsWith('Index'))),
      );
      expect(repeated.map((n) => `${n['Node Type']} x${n['Actual Loops']}`)).toEqual([]);
      expect(nodes.filter((n) => n['Node Type'].startsWith('Index')).every((n) => n['Actual Loops'] <= 50)).toBe(true);
    } finally {
      await client.end();
    }
    const hits = await pgb.search({ mode: 'keyword', text: 'common', filter, k: 50 });
    expect(hits).toHaveLength(50);
    // Records saying "common" twice rank first.
    expect(hits.slice(0, 10).every((h) => Number(h.record.id.slice(1)) % 4 === 0)).toBe(true);
  });

  it('migrates a schema 1 table to 2: old memories get occurredAt from createdAt, old terms keep scoring as content', async () => {
    const names = backend().names;
    const client = new pg.Client({ connectionString: url() });
    await client.connect();
    try {
      // A store as @agentmem/postgres wrote it before schema 2 (tsvector positions without weights).
      await client.query('CREATE EXTENSION IF NOT EXISTS vector');
      await client.query(`CREATE SCHEMA "${names.schema}"`);
      await client.query(
        `CREATE TABLE ${names.migrations} (version integer PRIMARY KEY, description text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
      );
      for (const sql of MIGRATIONS[0]!.up(names)) await client.query(sql);
      await client.query(`INSERT INTO ${names.migrations} (version, description) VALUES (1, 'v1')`);
      const old = (id: string, text: string, attributes: object) => {
        const terms = termsVector(text);
        return client.query(
          `INSERT INTO ${names.records} (id, tenant, namespace, text, terms, term_count, attributes, payload) VALUES ($1, '', 'n', $2, $3::tsvector, $4, $5::jsonb, '{}')`,
          [id, text, terms.literal.replace(/(\d)A/g, '$1'), terms.count, JSON.stringify(attributes)],
        );
      };
      const may = Date.parse('2023-05-08T13:56:00Z');
      await old('m1', 'deploy staging', { kind: 'memory', createdAt: may });
      await old('m2', 'green tea', { kind: 'memory', createdAt: may + 86_400_000 });
      await old('h1', '', { kind: 'history', createdAt: may });

      const b = backend({ schema: names.schema });
      await b.init({ dimension: 4 });
      const versions = await client.query(`SELECT version FROM ${names.migrations} ORDER BY version`);
      expect(versions.rows.map((r) => r.version)).toEqual(MIGRATIONS.map((m) => m.version));
      const got = await b.get(['m1', 'h1']);
      const m1 = got.find((r) => r.id === 'm1');
      const h1 = got.find((r) => r.id === 'h1');
      expect(m1!.attributes.occurredAt).toBe(may);
      expect(h1!.attributes.occurredAt).toBeUndefined();
      const columns = await client.query(`SELECT id, occurred_at, context FROM ${names.records} ORDER BY id`);
      expect(columns.rows.map((r) => [r.id, (r.occurred_at as Date | null)?.toISOString() ?? null, r.context])).toEqual(
        [
          ['h1', null, ''],
          ['m1', '2023-05-08T13:56:00.000Z', ''],
          ['m2', '2023-05-09T13:56:00.000Z', ''],
        ],
      );
      const inRange = await b.scan({ filter: { tenant: '', where: { occurredAt: { gte: may, lt: may + 1 } } } });
      expect(inRange.records.map((r) => r.id)).toEqual(['m1']);

      // Old (unweighted) terms count as content beside new rows with context, as in core.
      await b.upsert([
        {
          id: 'm3',
          namespace: 'n',
          tenant: '',
          text: 'tea review',
          context: 'deploy deploy',
          attributes: {},
          payload: {},
        },
      ]);
      const reference = new InMemoryBackend();
      await reference.init({ dimension: 4 });
      await reference.upsert(await b.get(['m1', 'm2', 'm3', 'h1']));
      for (const text of ['deploy', 'tea', 'green deploy']) {
        const request = { mode: 'keyword' as const, text, k: 10, filter: { tenant: '' } };
        const ours = await b.search(request);
        const theirs = await reference.search(request);
        expect(ours.map((h) => h.record.id)).toEqual(theirs.map((h) => h.record.id));
        for (const [i, h] of ours.entries()) expect(h.score).toBeCloseTo(theirs[i]!.score, 6);
      }
      expect((await b.get(['m3']))[0]!.context).toBe('deploy deploy');
    } finally {
      await client.end();
    }
  });

  it("keywordRanking 'ts_rank_cd' also finds context and ranks a context-only match below a content match", async () => {
    const b = backend({ keywordRanking: 'ts_rank_cd' });
    await b.init({ dimension: 4 });
    const rec = (id: string, text: string, context?: string): BackendRecord => ({
      id,
      namespace: 'n',
      tenant: '',
      text,
      ...(context === undefined ? {} : { context }),
      attributes: {},
      payload: {},
    });
    await b.upsert([
      rec('in-context', 'we met up', 'charity race in May'),
      rec('in-text', 'the charity race'),
      rec('no', 'tea'),
    ]);
    const hits = await b.search({ mode: 'keyword', text: 'charity race', k: 5, filter: { tenant: '' } });
    expect(hits.map((h) => h.record.id)).toEqual(['in-text', 'in-context']);
    expect(hits[1]!.score).toBeGreaterThan(0);
  });

  it('event-time ranges compare occurred_at, which follows the occurredAt attribute through writes and patches', async () => {
    const b = backend();
    await b.init({ dimension: 4 });
    const rec = (id: string, occurredAt?: number): BackendRecord => ({
      id,
      namespace: 'n',
      tenant: '',
      text: id,
      attributes: occurredAt === undefined ? {} : { occurredAt },
      payload: {},
    });
    await b.upsert([rec('a', 1000), rec('b', 2000), rec('none')]);
    const ids = async (range: { gt?: number; gte?: number; lt?: number; lte?: number }) =>
      (await b.scan({ filter: { tenant: '', where: { occurredAt: range } } })).records.map((r) => r.id);
    expect(await ids({ gte: 1000 })).toEqual(['a', 'b']);
    expect(await ids({ gte: 1000.5 })).toEqual(['b']);
    expect(await ids({ gt: 1999.5 })).toEqual(['b']);
    expect(await ids({ lt: 2000 })).toEqual(['a']);
    expect(await ids({ lte: 1999.9 })).toEqual(['a']);
    expect(await ids({ lt: 1e300 })).toEqual(['a', 'b']);
    expect(await ids({ gt: -1e300, lt: -1e300 })).toEqual([]);
    expect(await b.count({ tenant: '', where: { occurredAt: { ne: 1000 } } })).toBe(2); // others: attribute semantics
    await b.patch([{ id: 'none', attributes: { occurredAt: 1500 } }]);
    expect(await ids({ gt: 1000, lt: 2000 })).toEqual(['none']);
    const bad = await b.upsert([rec('c', 1.5)]).catch((e: unknown) => e);
    expect(AgentMemoryError.hasCode(bad, 'INVALID_INPUT')).toBe(true);
    expect((bad as Error).message).toContain('occurredAt');
    expect(await b.count({ tenant: '' })).toBe(3);
  });

  it('dense search filtered to a small tenant among many records still returns k (no starvation)', async () => {
    const b = backend();
    await b.init({ dimension: 8 });
    const random = seededRandom(3);
    const vec = () => unit(8, ...Array.from({ length: 8 }, () => random() - 0.5));
    const many: BackendRecord[] = Array.from({ length: 600 }, (_, i) => ({
      id: `big${i}`,
      namespace: 'user',
      tenant: 'big',
      text: '',
      vector: vec(),
      attributes: { status: 'active' },
      payload: {},
    }));
    const few: BackendRecord[] = Array.from({ length: 6 }, (_, i) => ({
      id: `small${i}`,
      namespace: 'user',
      tenant: 'small',
      text: '',
      vector: vec(),
      attributes: { status: i === 0 ? 'pruned' : 'active' },
      payload: {},
    }));
    await b.upsert([...many, ...few]);
    const query = vec();
    const hits = await b.search({
      mode: 'dense',
      vector: query,
      k: 5,
      filter: { tenant: 'small', where: { status: 'active' } },
    });
    expect(hits.map((h) => h.record.id).sort()).toEqual(['small1', 'small2', 'small3', 'small4', 'small5']);
    // Exact order by cosine similarity.
    const expected = few
      .slice(1)
      .map((r) => ({ id: r.id, s: cosineSimilarity(query, r.vector!) }))
      .sort((x, y) => y.s - x.s);
    expect(hits.map((h) => h.record.id)).toEqual(expected.map((e) => e.id));
    for (const [i, h] of hits.entries()) expect(h.score).toBeCloseTo(expected[i]!.s, 5);
  });

  it('records the embedder id and dimension and refuses another embedder', async () => {
    const schema = stores.schema();
    const memory = await createPostgresMemory({
      connectionString: url(),
      schema,
      embedder: new HashingEmbedder({ dimension: 64 }),
    });
    await memory.remember({ content: 'The staging database is PostgreSQL 16', type: 'project' });
    await memory.close();
    const error = await createPostgresMemory({
      connectionString: url(),
      schema,
      embedder: new HashingEmbedder({ dimension: 32 }),
    }).catch((e: unknown) => e);
    expect(AgentMemoryError.hasCode(error, 'EMBEDDER_MISMATCH')).toBe(true);
    const again = await createPostgresMemory({
      connectionString: url(),
      schema,
      embedder: new HashingEmbedder({ dimension: 64 }),
    });
    expect((await again.recall('staging database', { k: 1 }))[0]?.memory.content).toBe(
      'The staging database is PostgreSQL 16',
    );
    await again.close();
  });

  it('a write of many batches is one transaction: a failure in its last batch leaves nothing', async () => {
    const b = backend();
    await b.init({ dimension: 4 });
    const records: BackendRecord[] = Array.from({ length: 1200 }, (_, i) => ({
      id: `t${String(i).padStart(4, '0')}`,
      namespace: 'n',
      tenant: '',
      text: 'x',
      attributes: {},
      payload: {},
    }));
    records[1150]!.text = 'Postgres text cannot hold \u0000'; // rejected by the server, in the third statement
    const error = await b.upsert(records).catch((e: unknown) => e);
    expect(AgentMemoryError.hasCode(error, 'INVALID_INPUT')).toBe(true);
    expect(await b.count({ tenant: null })).toBe(0);
  });

  it.skipIf(options.singleSession)('a transaction is invisible to other connections until it commits', async () => {
    const b = backend();
    await b.init({ dimension: 4 });
    const reader = backend({ schema: b.names.schema });
    let seenInside = -1;
    await b.transaction(async () => {
      await b.upsert([{ id: 'inside', namespace: 'n', tenant: '', text: 'x', attributes: {}, payload: {} }]);
      seenInside = await reader.count({ tenant: null });
      expect(await b.count({ tenant: null })).toBe(1);
    });
    expect(seenInside).toBe(0);
    expect(await reader.count({ tenant: null })).toBe(1);
  });
}

