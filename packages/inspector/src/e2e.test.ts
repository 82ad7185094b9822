// biome-ignore-all lint/performance/useDomNodeTextContent: Playwright locators, where innerText is the rendered text a user reads.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type InspectorHandle, startInspector } from './index';
import { findChromium, launchChromium, NO_CHROMIUM } from './test-fixtures/browser';
import { type SeededStore, seedStore } from './test-fixtures/seed';

// End to end in a real headless Chromium: the bundle, the API and the security checks together.
const chromiumPath = findChromium();
if (!chromiumPath) console.warn(`Skipping the inspector's browser tests: ${NO_CHROMIUM}.`);

// A browser per suite; each step may wait on a busy CI machine.
const title = chromiumPath ? 'inspector in Chromium' : `inspector in Chromium (skipped: ${NO_CHROMIUM})`;
describe.skipIf(!chromiumPath)(title, { timeout: 60_000 }, () => {
  let store: SeededStore;
  let browser: Browser;
  let readOnly: InspectorHandle;
  let writable: InspectorHandle;

  beforeAll(async () => {
    [store, browser] = await Promise.all([seedStore(), launchChromium(chromiumPath!)]);
    readOnly = await startInspector({ memory: store.memory, label: store.path, settings: store.settings });
    writable = await startInspector({
      memory: store.memory,
      label: store.path,
      settings: store.settings,
      allowWrites: true,
    });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await readOnly?.close();
    await writable?.close();
    await store?.cleanup();
  });

  /** A fresh browser profile that opened the printed URL. */
  async function open(handle: InspectorHandle, hash = ''): Promise<Page> {
    const page = await (await browser.newContext()).newPage();
    page.on('pageerror', (error) => {
      throw error;
    });
    await page.goto(handle.url);
    if (hash) await page.goto(`${handle.origin}/${hash}`);
    return page;
  }

  /** The snapshot-merge preview of the teammate's snapshot, once it shows its one conflict. */
  async function previewSnapshot(handle: InspectorHandle): Promise<Page> {
    const page = await open(handle, '#/previews/snapshot');
    await page.getByTestId('snapshot-path').fill(store.snapshotPath);
    await page.getByRole('button', { name: 'Preview' }).click();
    await expect.poll(() => page.getByTestId('count-conflicts').innerText()).toBe('1');
    return page;
  }

  it('opens the overview of a seeded store: counts per tenant, branch and type, embedder, skills, activity', async () => {
    const page = await open(readOnly);
    expect(new URL(page.url()).search).toBe(''); // the token left the address bar
    const table = page.getByTestId('overview-table');
    await expect.poll(() => table.locator('tbody tr').count()).toBe(6);
    const rows = await table.locator('tbody tr').allInnerTexts();
    expect(rows.some((r) => /alice\s+global\s+user\s+user\s+2\s+0/.test(r))).toBe(true);
    expect(rows.some((r) => /feature-x\s+project:feature-x/.test(r))).toBe(true);
    expect(rows.some((r) => /main\s+project:main\s+project\s+3\s+1/.test(r))).toBe(true);
    const cards = await page.getByTestId('overview-cards').innerText();
    expect(cards).toMatch(/Active memories\s+12/);
    expect(cards).toMatch(/Skills\s+4/);
    expect(cards).toContain('agentmem/hashing-v1:384');
    await expect.poll(() => page.locator('section[aria-labelledby=activity] canvas').count()).toBeGreaterThan(0);
    await expect.poll(() => page.getByTestId('read-only-badge').isVisible()).toBe(true);
    await page.context().close();
  });

  it('shows the view of a hash that changed while the page was starting (a link followed at once)', async () => {
    const context = await browser.newContext();
    // Runs after the app's first render, before its effects: the moment a hashchange could go unheard.
    await context.addInitScript(
      "document.addEventListener('DOMContentLoaded', () => { location.hash = '#/previews/snapshot'; });",
    );
    const page = await context.newPage();
    await page.goto(readOnly.url);
    await expect.poll(() => page.getByTestId('snapshot-path').count()).toBe(1);
    await context.close();
  });

  it('filters memories, opens one and shows its history and decay chart', async () => {
    const page = await open(readOnly, '#/memories');
    await page.getByLabel('Text').fill('postgresql');
    await page.getByLabel('Text').press('Enter');
    const rows = page.getByTestId('memories-table').locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(2);
    // Keyboard only: focus the link and press Enter.
    await page.getByRole('link', { name: /PostgreSQL 16 since the March upgrade/ }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByTestId('history').locator('li').count()).toBe(3);
    const history = await page.getByTestId('history').innerText();
    const actions = history.toLowerCase();
    expect(actions.indexOf('create')).toBeLessThan(actions.indexOf('update'));
    expect(actions).toContain('supersede');
    expect(await page.getByTestId('decay-summary').innerText()).toMatch(/prune threshold 0\.05/);
    const pruneDate = await page.getByTestId('prune-date').innerText();
    const last = Date.parse((await store.memory.get(store.historyId))!.lastAccessedAt);
    expect(Date.parse(`${pruneDate.replace(' ', 'T')}Z`) - last).toBeLessThan(4 * 168 * 3_600_000 + 60_000);
    await expect
      .poll(() => page.locator('#decay ~ figure canvas, section[aria-labelledby=decay] canvas').count())
      .toBeGreaterThan(0);
    await page.context().close();
  });

  it('runs the recall explainer and ranks exactly as recall()', async () => {
    const query = 'which database and cluster do we run';
    const page = await open(readOnly, '#/recall');
    await page.getByTestId('recall-query').fill(query);
    await page.getByRole('button', { name: 'Explain' }).click();
    const rows = page.getByTestId('recall-table').locator('tbody tr');
    await expect.poll(() => rows.count()).toBeGreaterThan(1);
    const shown = await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-id')));
    const expected = await store.memory.recall(query, { k: 10, reinforce: false });
    expect(shown).toEqual(expected.map((r) => r.memory.id));
    expect(await page.getByTestId('context-block').innerText()).toContain('## Relevant memories');
    await page.context().close();
  });

  it('previews a snapshot merge with its conflict, but refuses to apply it without --allow-writes', async () => {
    const page = await previewSnapshot(readOnly);
    const conflict = await page.getByTestId('conflicts').innerText();
    expect(conflict).toContain('Deploys happen on Tuesdays after the standup');
    expect(conflict).toContain('Deploys happen on Wednesdays after the standup');
    expect(await page.getByTestId('apply-merge').isDisabled()).toBe(true);
    expect(await page.getByTestId('read-only-note').first().innerText()).toContain('--allow-writes');
    // Even a hand-made request with the page's own token and CSRF token is refused.
    const refused = await page.evaluate(async (path) => {
      // The page's own token, where the page keeps it (this file is type-checked without the DOM library).
      const storage = (globalThis as unknown as { sessionStorage: { getItem(key: string): string | null } })
        .sessionStorage;
      const authorization = `Bearer ${storage.getItem('agentmem-inspector-token')}`;
      const { csrf } = (await (await fetch('/api/session', { headers: { authorization } })).json()) as { csrf: string };
      const res = await fetch('/api/apply/snapshot', {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/json', 'x-csrf-token': csrf },
        body: JSON.stringify({ path, strategy: 'remote_wins' }),
      });
      return { status: res.status, body: (await res.json()) as { error: { code: string } } };
    }, store.snapshotPath);
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('READ_ONLY');
    expect(await store.memory.listMerges()).toEqual([]);
    await page.context().close();
  });

  it('refuses a browser without the token, under a foreign host name, or from another origin', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    // The page itself holds no data: without the token it says what to open.
    const bare = await page.goto(`${readOnly.origin}/`);
    expect(bare?.status()).toBe(200);
    await expect
      .poll(() => page.getByTestId('unauthorized').innerText())
      .toContain('open the URL that `agentmem inspect` printed');
    expect((await page.goto(`${readOnly.origin}/api/overview`))?.status()).toBe(401);
    // DNS rebinding: a name that resolves to 127.0.0.1 is still not this server's name.
    const rebound = await page.goto(readOnly.url.replace('127.0.0.1', 'rebind.test'));
    expect(rebound?.status()).toBe(403);
    // Another local site (same host, other port): the browser sends it no credential of the inspector
    // (a cookie would go to every port of 127.0.0.1), and a forged merge on the writable inspector does nothing.
    await page.goto(writable.url);
    await expect.poll(() => page.getByTestId('overview-table').count()).toBe(1);
    // The token left the address bar but stays with this tab: a reload still works.
    expect(new URL(page.url()).search).toBe('');
    await page.reload();
    await expect.poll(() => page.getByTestId('overview-table').count()).toBe(1);
    const token = new URL(writable.url).searchParams.get('token')!;
    const seen: string[] = [];
    const evil: Server = createServer((req, res) => {
      seen.push(`${req.url} ${JSON.stringify(req.headers)}`);
      res.setHeader('content-type', 'text/html');
      res.end('<!doctype html><title>evil</title>');
    });
    await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
    try {
      const evilOrigin = `http://127.0.0.1:${(evil.address() as AddressInfo).port}`;
      await page.goto(`${evilOrigin}/`);
      const outcome = await page.evaluate(
        async ({ origin, evilOrigin, path }) => {
          await fetch(`${evilOrigin}/again`, { credentials: 'include' });
          const body = JSON.stringify({ path, strategy: 'remote_wins' });
          try {
            const res = await fetch(`${origin}/api/apply/snapshot`, {
              method: 'POST',
              mode: 'no-cors',
              credentials: 'include',
              body,
            });
            return res.type;
          } catch (error) {
            return String(error);
          }
        },
        { origin: writable.origin, evilOrigin, path: store.snapshotPath },
      );
      expect(seen.filter((r) => r.startsWith('/ ') || r.startsWith('/again ')).length).toBe(2);
      for (const request of seen) expect(request).not.toContain(token);
      expect(outcome).not.toBe('basic'); // never a readable same-origin answer
      expect(await store.memory.listMerges()).toEqual([]);
      expect((await store.memory.get(store.conflictId))?.content).toBe('Deploys happen on Tuesdays after the standup');
    } finally {
      evil.close();
      await context.close();
    }
  });

  it('with --allow-writes: applies the merge after a confirmation, then undoes it', async () => {
    const page = await previewSnapshot(writable);
    const strategies = await page.getByTestId('strategy-table').innerText();
    expect(strategies).toMatch(/remote_wins\s+1\s+1\s+0\s+0/);
    await page.getByTestId('strategy').selectOption('remote_wins');
    await page.getByTestId('apply-merge').click();
    // Cancelling the confirmation changes nothing.
    await page.getByRole('button', { name: 'Cancel' }).click();
    expect(await store.memory.listMerges()).toEqual([]);
    await page.getByTestId('apply-merge').click();
    await page.getByTestId('confirm').click();
    await expect.poll(() => page.getByTestId('write-outcome').innerText()).toMatch(/Merged|import/i);
    expect((await store.memory.get(store.conflictId))?.content).toBe('Deploys happen on Wednesdays after the standup');
    const [merge] = await store.memory.listMerges();
    expect(merge?.status).toBe('applied');

    await page.getByRole('link', { name: 'Merges' }).click();
    await page.getByTestId('undo').click();
    await page.getByTestId('confirm').click();
    await expect.poll(async () => (await store.memory.listMerges())[0]?.status).toBe('undone');
    expect((await store.memory.get(store.conflictId))?.content).toBe('Deploys happen on Tuesdays after the standup');
    await page.context().close();
  });
});
