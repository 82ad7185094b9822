import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { abortedError, AgentMemory, type Embedder, HashingEmbedder, InMemoryBackend } from '@agentmem/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type InspectorHandle, startInspector } from './index';
import { type SeededStore, seedStore } from './test-fixtures/seed';
import { http, login } from './test-fixtures/http';

let store: SeededStore;
let readOnly: InspectorHandle;
let session: Awaited<ReturnType<typeof login>>;

beforeAll(async () => {
  store = await seedStore();
  readOnly = await startInspector({ memory: store.memory, label: store.path, settings: store.settings });
  session = await login(readOnly.url);
});
afterAll(async () => {
  await readOnly?.close();
  await store?.cleanup();
});

const api = (path: string, headers: Record<string, string> = {}) =>
  http(`${session.origin}${path}`, { headers: { ...session.headers, ...headers } });

describe('inspector security', () => {
  it('listens on loopback only; the URL token opens the page and is taken only as a header, never as a cookie', async () => {
    expect(new URL(readOnly.url).hostname).toBe('127.0.0.1');
    const first = await http(readOnly.url);
    expect(first.status).toBe(200);
    // No cookie: the browser would send it to every other server on 127.0.0.1.
    expect(first.headers['set-cookie']).toBeUndefined();
    expect(first.body).not.toContain(session.token);
    expect(first.body).not.toContain(session.csrf);
    expect(first.headers['content-security-policy']).toContain("default-src 'none'");
    expect(first.headers['content-security-policy']).toContain("script-src 'self'");
    expect(first.headers['referrer-policy']).toBe('no-referrer');
    // Everything the page loads is served by the inspector itself.
    expect(first.body).not.toMatch(/https?:\/\//);
    expect((await http(`${session.origin}/assets/app.js`)).body).not.toMatch(/<script|https:\/\/(cdn|unpkg|fonts)/);
    // The API takes the token in the Authorization header only: not as a cookie, not in the query.
    expect((await api('/api/overview')).status).toBe(200);
    const asCookie = { cookie: `agentmem_inspector_${readOnly.port}=${session.token}` };
    expect((await http(`${session.origin}/api/overview`, { headers: asCookie })).status).toBe(401);
    expect((await http(`${session.origin}/api/overview?token=${session.token}`)).status).toBe(401);
    const me = (await api('/api/session')).json<{ csrf: string; allowWrites: boolean; store: string }>();
    expect(me).toEqual({ csrf: session.csrf, allowWrites: false, store: store.path });
  });

  it('refuses requests without the token, with a wrong one, a foreign Host or a foreign Origin', async () => {
    expect((await http(`${session.origin}/api/overview`)).status).toBe(401);
    expect((await http(`${session.origin}/api/session`)).status).toBe(401);
    expect((await http(`${session.origin}/?token=wrong`)).status).toBe(401);
    expect((await api('/api/overview', { authorization: 'Bearer nope' })).status).toBe(401);
    expect((await api('/api/overview', { authorization: session.token })).status).toBe(401);
    const rebinding = await api('/api/overview', { host: `evil.example:${readOnly.port}` });
    expect(rebinding.status).toBe(403);
    expect(rebinding.body).toMatch(/Host evil\.example/);
    expect((await api('/api/overview', { origin: 'http://evil.example' })).status).toBe(403);
    expect((await api('/api/overview', { origin: `http://127.0.0.1:${readOnly.port + 1}` })).status).toBe(403);
    expect((await api('/api/overview', { origin: session.origin })).status).toBe(200);
  });
});

describe('inspector API (read-only)', () => {
  it('refuses every write without --allow-writes and changes nothing', async () => {
    const before = await store.memory.listMerges();
    const headers = { ...session.headers, origin: session.origin, 'x-csrf-token': session.csrf };
    for (const [path, body] of [
      ['/api/apply/snapshot', { path: store.snapshotPath }],
      ['/api/apply/decay', {}],
      ['/api/apply/undo', { mergeId: 'x' }],
    ] as const) {
      const res = await http(`${session.origin}${path}`, { method: 'POST', headers, body });
      expect(res.status).toBe(403);
      expect(res.json<{ error: { code: string; message: string } }>().error).toMatchObject({ code: 'READ_ONLY' });
      expect(res.body).toContain('--allow-writes');
    }
    expect(await store.memory.listMerges()).toEqual(before);
    expect((await store.memory.get(store.conflictId))?.content).toBe('Deploys happen on Tuesdays after the standup');
  });

  it('pages through every memory of every tenant without loading them all', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const res = await api(`/api/memories?tenant=*&limit=4${cursor ? `&cursor=${cursor}` : ''}`);
      const page = res.json<{ rows: { id: string }[]; total: number; cursor?: string }>();
      expect(page.rows.length).toBeLessThanOrEqual(4);
      seen.push(...page.rows.map((r) => r.id));
      cursor = page.cursor;
      pages++;
    } while (cursor);
    const all: string[] = [];
    for await (const m of store.memory.memories({ allTenants: true, includeInactive: true })) all.push(m.id);
    expect(seen.sort()).toEqual(all.sort());
    expect(pages).toBeGreaterThan(2);
  });

  it('filters by tenant, status, tag and text', async () => {
    const rows = async (q: string) =>
      (await api(`/api/memories?${q}`)).json<{ rows: { content: string; tenant: string; status: string }[] }>().rows;
    expect((await rows('tenant=alice')).map((r) => r.tenant)).toEqual(['alice', 'alice']);
    expect((await rows('status=superseded')).map((r) => r.content)).toEqual([
      'The main database is PostgreSQL 16 since the March upgrade',
    ]);
    expect((await rows('tag=infra&status=active')).map((r) => r.content).sort()).toEqual([
      'The staging cluster runs Kubernetes 1.29 on three nodes',
    ]);
    expect((await rows('q=postgresql')).length).toBe(2);
    const bad = await api('/api/memories?type=nonsense');
    expect(bad.status).toBe(400);
    expect(bad.body).toContain('memory type');
  });

  it("explains recall with recall()'s own ranking and does not reinforce what it shows", async () => {
    const query = 'which database and cluster do we run';
    const before = await store.memory.get(store.historyId);
    const res = (await api(`/api/recall?q=${encodeURIComponent(query)}&k=5`)).json<{
      results: { id: string; score: number; keyword?: { rank: number } }[];
      context: { block: string };
    }>();
    const expected = await store.memory.recall(query, { k: 5, reinforce: false });
    expect(res.results.map((r) => r.id)).toEqual(expected.map((r) => r.memory.id));
    // The same scores, up to the decay of the milliseconds between the two calls.
    for (const [i, r] of res.results.entries()) expect(r.score).toBeCloseTo(expected[i]!.score, 6);
    expect(res.results[0]?.keyword?.rank).toBe(expected[0]?.signals.keyword?.rank);
    expect(res.context.block).toContain('<agentmem-context>');
    // Looking is not using: access counts stay.
    const after = await store.memory.get(store.historyId);
    expect(after?.accessCount).toBe(before?.accessCount);
    expect(after?.lastAccessedAt).toBe(before?.lastAccessedAt);
  });

  it('says why a skill did not activate', async () => {
    const res = (await api('/api/skills/activate?message=add%20a%20migration%20for%20the%20users%20table')).json<{
      verdicts: { name: string; activated: boolean; reason?: string; signals: { keyword?: { matched: string[] } } }[];
    }>();
    const byName = Object.fromEntries(res.verdicts.map((v) => [v.name, v]));
    expect(byName['database-migrations']).toMatchObject({
      activated: true,
      signals: { keyword: { matched: ['migration'] } },
    });
    expect(byName['code-style']?.activated).toBe(true); // alwaysApply
    expect(byName['release-notes']?.activated).toBe(false);
    expect(byName['release-notes']?.reason).toBeTruthy();
  });

  it('previews a snapshot merge: the conflict and what each strategy would do', async () => {
    const res = await api(`/api/preview/snapshot?path=${encodeURIComponent(store.snapshotPath)}`);
    expect(res.status, res.body).toBe(200);
    const p = res.json<{
      counts: { new: number; conflicts: number };
      strategies: Record<string, { overwritten: number; keptLocal: number; keptBoth: number }>;
      conflicts: { id: string; local: { content: string }; remote: { content: string } }[];
    }>();
    expect(p.counts).toMatchObject({ new: 1, conflicts: 1 });
    expect(p.conflicts[0]).toMatchObject({
      id: store.conflictId,
      local: { content: 'Deploys happen on Tuesdays after the standup' },
      remote: { content: 'Deploys happen on Wednesdays after the standup' },
    });
    expect(p.strategies.local_wins).toMatchObject({ overwritten: 0, keptLocal: 1 });
    expect(p.strategies.remote_wins).toMatchObject({ overwritten: 1, keptLocal: 0 });
    expect(p.strategies.newer_wins).toMatchObject({ overwritten: 1 });
    expect(p.strategies.keep_both).toMatchObject({ keptBoth: 1 });
  });

  it('answers a path that is no snapshot (a text file, a directory) with 400 NOT_A_SNAPSHOT, not 500', async () => {
    const text = join(store.dir, 'notes.txt');
    writeFileSync(text, 'not a snapshot');
    for (const path of [text, store.dir]) {
      const res = await api(`/api/preview/snapshot?path=${encodeURIComponent(path)}`);
      expect(res.status, res.body).toBe(400);
      expect(res.json<{ error: { code: string; message: string } }>().error).toMatchObject({
        code: 'NOT_A_SNAPSHOT',
        message: expect.stringContaining('agentmem snapshot'),
      });
    }
  });

  it('refuses a branch merged into itself in the words of the page, not the API options', async () => {
    const res = await api('/api/preview/branch?source=main&into=main');
    expect(res.status).toBe(400);
    const { message } = res.json<{ error: { message: string } }>().error;
    expect(message).toContain('choose two different branches');
    expect(message).not.toContain('pass {');
  });

  it('lists branches and previews merging one into another', async () => {
    const branches = (await api('/api/branches')).json<{ branch: string; total: number }[]>();
    expect(branches.map((b) => b.branch).sort()).toEqual(['feature-x', 'main']);
    const p = (await api('/api/preview/branch?source=feature-x&into=main')).json<{
      counts: { new: number; conflicts: number };
      imports: { content: string; targetNamespace: string }[];
    }>();
    expect(p.counts).toMatchObject({ new: 2, conflicts: 0 });
    expect(p.imports.map((i) => i.targetNamespace)).toEqual(['project:main', 'project:main']);
    expect((await api('/api/preview/branch?source=feature-x')).status).toBe(400);
  });

  it('previews decay at a later date with a histogram that counts every active memory', async () => {
    const at = new Date(Date.now() + 60 * 86_400_000).toISOString();
    const p = (await api(`/api/preview/decay?at=${encodeURIComponent(at)}`)).json<{
      report: { scanned: number; pruned: number };
      histogram: { from: number; count: number }[];
      threshold: number;
    }>();
    const active =
      (await store.memory.stats()).total + (await store.memory.withScope({ tenant: 'alice' }).stats()).total;
    expect(p.histogram.reduce((s, b) => s + b.count, 0)).toBe(p.report.scanned);
    expect(p.report.scanned).toBe(active);
    // Sixty days is past eight half-lives: everything falls below 0.05 and would be pruned.
    expect(p.report.pruned).toBe(p.report.scanned);
    expect(p.histogram[0]!.count).toBe(p.report.scanned);
    // Nothing was pruned for real.
    expect((await store.memory.stats()).inactive).toBe(1);
  });

  it('shows a memory with its full history and decay curve', async () => {
    const d = (await api(`/api/memories/${store.historyId}`)).json<{
      status: string;
      history: { action: string }[];
      decay: { pruneAt: string; threshold: number; halfLifeHours: number; points: [number, number][] };
    }>();
    expect(d.status).toBe('superseded');
    expect(d.history.map((h) => h.action)).toEqual(['create', 'update', 'supersede']);
    // importance 0.8 → 0.05 takes log2(16) = 4 half-lives of 168 h.
    const last = Date.parse((await store.memory.get(store.historyId))!.lastAccessedAt);
    expect(Date.parse(d.decay.pruneAt) - last).toBeCloseTo(4 * 168 * 3_600_000, -4);
    expect(d.decay.points[0]![1]).toBeCloseTo(0.8, 5);
  });
});

describe('inspector errors', () => {
  it('answers a recall its embedder was cancelled in with 499 ABORTED (the caller closed it), not a server error', async () => {
    const hashing = new HashingEmbedder();
    const cancel = new AbortController();
    cancel.abort();
    // Stores like the default embedder; a query's embedding is cancelled, as a caller's AbortSignal would.
    const cancelled: Embedder = {
      specificationVersion: 'v1',
      id: hashing.id,
      dimension: hashing.dimension,
      embed: (texts, options) =>
        options.purpose === 'query'
          ? Promise.reject(abortedError('embed', cancel.signal))
          : hashing.embed(texts, options),
    };
    const memory = new AgentMemory({ backend: new InMemoryBackend(), embedder: cancelled });
    await memory.remember({ content: 'Deploys happen on Tuesdays', type: 'project' });
    const inspector = await startInspector({ memory, label: 'in-memory' });
    try {
      const s = await login(inspector.url);
      const res = await http(`${s.origin}/api/recall?q=deploys`, { headers: s.headers });
      expect(res.status).toBe(499);
      expect(res.json<{ error: { code: string; message: string } }>().error).toEqual({
        code: 'ABORTED',
        message: "embed was cancelled by the caller's signal.",
      });
    } finally {
      await inspector.close();
    }
  });
});
