import { AgentMemoryError, type AgentMemoryErrorCode } from '@agentmem/core';
import { Hono } from 'hono';
import type { ContentfulStatusCode, UnofficialStatusCode } from 'hono/utils/http-status';
import { loadAssets } from './assets';
import { entityDetail, listEntityPage } from './data/entities';
import { explainRecall } from './data/explain';
import { listMemories, memoryDetail } from './data/memories';
import { loadOverview, loadTimeline } from './data/overview';
import {
  applyBranch,
  applyDecayNow,
  applySnapshot,
  listBranches,
  listMerges,
  previewBranch,
  previewDecay,
  previewSnapshot,
  undo,
} from './data/previews';
import { explainSkills, listSkills } from './data/skills';
import { READ_ONLY_MESSAGE } from './read-only-backend';
import { type Secrets, security } from './security';
import type { Stores } from './stores';

/** Every error code's HTTP status (a Record, so a new code cannot fall through to 500 unnoticed). */
const STATUS_OF: Record<AgentMemoryErrorCode, ContentfulStatusCode> = {
  INVALID_INPUT: 400,
  NOT_FOUND: 404,
  CAPABILITY_MISSING: 403,
  CONFLICT: 409,
  EMBEDDER_MISMATCH: 409,
  DIMENSION_MISMATCH: 409,
  NOT_A_DATABASE: 400,
  CORRUPT_SNAPSHOT: 400,
  NOT_A_SNAPSHOT: 400,
  UNSUPPORTED_FORMAT: 400,
  MISSING_DEPENDENCY: 500,
  BACKEND_UNAVAILABLE: 503,
  BACKEND_ERROR: 502,
  TIMEOUT: 504,
  AUTHENTICATION: 502,
  RATE_LIMITED: 429,
  CLOSED: 503,
  // nginx's "client closed request": the caller cancelled it, so no server fault (a 5xx would count as one).
  ABORTED: 499 as UnofficialStatusCode,
};

/**
 * The page: no data and no secret in it (anyone on this machine may load it).
 * Its script keeps the token from the printed URL and asks /api/session for
 * the rest.
 */
function page(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<link rel="icon" href="data:,">
<title>agentmem inspector</title>
<link rel="stylesheet" href="/assets/app.css">
</head>
<body>
<div id="app"></div>
<script type="module" src="/assets/app.js"></script>
</body>
</html>`;
}

const list = (value: string | undefined) =>
  (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');

/** The inspector's HTTP app: the page, its bundle and a JSON API over core's public API. */
export function createInspectorApp(options: {
  stores: Stores;
  secrets: Secrets;
  port: () => number;
  label: string;
}): Hono {
  const { stores, secrets, label } = options;
  const app = new Hono();
  app.use('*', security(secrets, options.port));

  app.get('/', (c) => c.html(page()));
  // What the page needs besides data: the CSRF token for writes, whether writes are allowed, the store's name.
  app.get('/api/session', (c) => c.json({ csrf: secrets.csrf, allowWrites: stores.allowWrites, store: label }));
  app.get('/assets/app.js', async (c) =>
    c.body((await loadAssets()).js, 200, { 'Content-Type': 'text/javascript; charset=utf-8' }),
  );
  app.get('/assets/app.css', async (c) =>
    c.body((await loadAssets()).css, 200, { 'Content-Type': 'text/css; charset=utf-8' }),
  );

  app.get('/api/overview', async (c) => c.json(await loadOverview(stores, label)));
  app.get('/api/timeline', async (c) => c.json(await loadTimeline(stores)));
  app.get('/api/memories', async (c) => {
    const q = c.req.query();
    return c.json(await listMemories(stores, { ...q, limit: q.limit ? Number(q.limit) : undefined }));
  });
  app.get('/api/memories/:id', async (c) => c.json(await memoryDetail(stores, c.req.param('id'))));
  app.get('/api/recall', async (c) => {
    const q = c.req.query();
    return c.json(
      await explainRecall(stores, {
        q: q.q ?? '',
        tenant: q.tenant,
        branch: q.branch,
        k: q.k ? Number(q.k) : undefined,
        types: list(q.types),
        files: list(q.files),
      }),
    );
  });
  app.get('/api/entities', async (c) => {
    const q = c.req.query();
    return c.json(await listEntityPage(stores, { ...q, limit: q.limit ? Number(q.limit) : undefined }));
  });
  app.get('/api/entity', async (c) => {
    const q = c.req.query();
    return c.json(await entityDetail(stores, { key: q.key ?? '', tenant: q.tenant, branch: q.branch }));
  });
  app.get('/api/skills', async (c) => c.json(await listSkills(stores, c.req.query('tenant'))));
  app.get('/api/skills/activate', async (c) => {
    const q = c.req.query();
    return c.json(await explainSkills(stores, { message: q.message ?? '', files: list(q.files), tenant: q.tenant }));
  });
  app.get('/api/branches', async (c) => c.json(await listBranches(stores, c.req.query('tenant'))));
  app.get('/api/merges', async (c) => c.json(await listMerges(stores, c.req.query('tenant'))));
  app.get('/api/preview/snapshot', async (c) => c.json(await previewSnapshot(stores, c.req.query())));
  app.get('/api/preview/branch', async (c) => c.json(await previewBranch(stores, c.req.query())));
  app.get('/api/preview/decay', async (c) => c.json(await previewDecay(stores, c.req.query())));

  // Writes: refused before the store is touched unless started with --allow-writes.
  const writes = new Hono();
  writes.use('*', async (c, next) => {
    if (!stores.allowWrites) return c.json({ error: { code: 'READ_ONLY', message: READ_ONLY_MESSAGE } }, 403);
    await next();
  });
  const body = async (c: { req: { json(): Promise<unknown> } }) => {
    const value = await c.req.json().catch(() => undefined);
    if (value === null || typeof value !== 'object') {
      throw new AgentMemoryError('INVALID_INPUT', 'The request body must be a JSON object.');
    }
    return value as Record<string, string | undefined>;
  };
  writes.post('/snapshot', async (c) => c.json(await applySnapshot(stores, await body(c))));
  writes.post('/branch', async (c) => c.json(await applyBranch(stores, await body(c))));
  writes.post('/decay', async (c) => c.json(await applyDecayNow(stores)));
  writes.post('/undo', async (c) => c.json(await undo(stores, await body(c))));
  app.route('/api/apply', writes);

  app.notFound((c) => c.json({ error: { code: 'NOT_FOUND', message: `No such page: ${c.req.path}` } }, 404));
  app.onError((error, c) => {
    if (error instanceof AgentMemoryError) {
      return c.json({ error: { code: error.code, message: error.message } }, STATUS_OF[error.code] ?? 500);
    }
    return c.json(
      { error: { code: 'INTERNAL', message: error instanceof Error ? error.message : String(error) } },
      500,
    );
  });
  return app;
}
