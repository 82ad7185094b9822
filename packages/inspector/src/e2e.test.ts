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

  /** Each view with what fills it (a query run, a preview shown), as a user on that screen would see it. */
  const VIEWS: { name: string; hash: string; fill: (page: Page) => Promise<unknown> }[] = [
    { name: 'overview', hash: '#/overview', fill: (p) => p.getByTestId('overview-table').waitFor() },
    { name: 'memories', hash: '#/memories', fill: (p) => p.getByTestId('memories-table').waitFor() },
    { name: 'memory', hash: '', fill: (p) => p.getByTestId('history').waitFor() },
    {
      name: 'recall',
      hash: '#/recall',
      fill: async (p) => {
        await p.getByTestId('recall-query').fill('which database and cluster do we run');
        await p.getByRole('button', { name: 'Explain' }).click();
        await p.getByTestId('context-block').waitFor();
      },
    },
    {
      name: 'skills',
      hash: '#/skills',
      fill: async (p) => {
        await p.getByTestId('skills-message').fill('add a migration for the users table');
        await p.getByRole('button', { name: 'Activate' }).click();
        await p.getByTestId('skills-verdicts').waitFor();
      },
    },
    {
      name: 'snapshot merge',
      hash: '#/previews/snapshot',
      fill: async (p) => {
        await p.getByTestId('snapshot-path').fill(store.snapshotPath);
        await p.getByRole('button', { name: 'Preview' }).click();
        await p.getByTestId('conflicts').waitFor();
      },
    },
    {
      name: 'branch merge',
      hash: '#/previews/branch',
      fill: async (p) => {
        await p.getByRole('button', { name: 'Preview' }).click();
        await p.getByTestId('strategy-table').waitFor();
      },
    },
    { name: 'decay', hash: '#/previews/decay', fill: (p) => p.getByTestId('decay-report').waitFor() },
    { name: 'entities', hash: '#/entities', fill: (p) => p.getByTestId('entities-table').waitFor() },
    {
      name: 'merges',
      hash: '#/previews/merges',
      // The merge test may have run first: its (undone) merge is listed.
      fill: (p) => p.getByTestId('merges').or(p.getByText('No merges yet.')).waitFor(),
    },
  ];

  for (const viewport of [
    { width: 390, height: 844 },
    { width: 1280, height: 800 },
  ]) {
    it(`fits every view in ${viewport.width} px: no sideways scroll, header controls on screen, no console errors`, async () => {
      const context = await browser.newContext({ viewport });
      context.setDefaultTimeout(15_000); // a view that never fills is reported below, with the others
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error') errors.push(message.text());
      });
      page.on('pageerror', (error) => errors.push(String(error)));
      await page.goto(readOnly.url);
      const problems: string[] = [];
      for (const view of VIEWS) {
        await page.goto(`${readOnly.origin}/${view.hash || `#/memory/${store.historyId}`}`);
        try {
          await view.fill(page);
        } catch (error) {
          problems.push(`${view.name}: ${String(error).split('\n')[0]}`);
          continue;
        }
        // A string, not a function: this file compiles without the DOM library.
        const [scrollWidth, width] = (await page.evaluate(
          '[document.documentElement.scrollWidth, document.documentElement.clientWidth]',
        )) as [number, number];
        if (scrollWidth > width)
          problems.push(`${view.name}: the page is ${scrollWidth} px wide in a ${width} px window`);
        const offscreen: string[] = [];
        for (const control of await page.locator('header nav a, header .badge, header button').all()) {
          const box = await control.boundingBox();
          if (!box || box.x < 0 || box.x + box.width > width) {
            offscreen.push((await control.innerText()).trim() || ((await control.getAttribute('aria-label')) ?? '?'));
          }
        }
        if (offscreen.length > 0) problems.push(`${view.name}: off-screen: ${offscreen.join(', ')}`);
      }
      expect(problems).toEqual([]);
      expect(errors).toEqual([]);
      await context.close();
    });
  }

  it('previews decay at the instant "Apply decay now" applies, and never applies a dry run of another date', async () => {
    const started = Date.now();
    const page = await open(writable, '#/previews/decay');
    // Shown on arrival, at the current time (not at today 00:00 UTC).
    const report = await page.getByTestId('decay-report').innerText();
    const at = Date.parse(`${/(\d{4}-\d\d-\d\d \d\d:\d\d) UTC/.exec(report)?.[1]?.replace(' ', 'T')}Z`);
    expect(report).toMatch(/^Now /);
    expect(at).toBeGreaterThanOrEqual(started - 60_000);
    expect(at).toBeLessThanOrEqual(Date.now());
    expect(await page.getByTestId('apply-decay').isDisabled()).toBe(false);
    // A dry run at a later date says so, and offers no apply.
    await page.getByTestId('decay-date').fill(new Date(Date.now() + 60 * 86_400_000).toISOString().slice(0, 10));
    await page.getByRole('button', { name: 'Dry run' }).click();
    await expect.poll(() => page.getByTestId('decay-report').innerText()).toMatch(/^At /);
    expect(await page.getByTestId('apply-decay').isDisabled()).toBe(true);
    expect(await page.getByTestId('decay-not-now').innerText()).toContain('only applied now');
    await page.context().close();
  });

  it('says why the memories table is empty when the text filter matches nothing', async () => {
    const page = await open(readOnly, '#/memories');
    await page.getByLabel('Text').fill('no memory says this');
    await page.getByLabel('Text').press('Enter');
    await expect
      .poll(() => page.getByTestId('memories-empty').innerText())
      .toBe('None of the 13 memories that match the other filters matches text "no memory says this".');
    expect(await page.getByTestId('memories-table').count()).toBe(0);
    await page.context().close();
  });

  it('keeps the filter text typed while the first page of memories is still loading', async () => {
    const page = await (await browser.newContext()).newPage();
    // Hold the first page back until the user has typed, as a slow store or network would.
    let release!: () => void;
    const typed = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route('**/api/memories?**', async (route) => {
      await typed;
      await route.continue();
    });
    await page.goto(readOnly.url);
    await page.goto(`${readOnly.origin}/#/memories`);
    await page.getByLabel('Text').fill('postgresql');
    release();
    await page.getByTestId('memories-table').waitFor();
    expect(await page.getByLabel('Text').inputValue()).toBe('postgresql');
    await page.getByLabel('Text').press('Enter');
    await expect.poll(() => page.getByTestId('memories-table').locator('tbody tr').count()).toBe(2);
    await page.context().close();
  });

  it('names columns and counts in words: effective importance, never recalled', async () => {
    const page = await open(readOnly, '#/memories');
    // allInnerTexts does not wait: wait for the table's first header before reading them.
    await page.getByTestId('memories-table').locator('th').first().waitFor();
    const headers = await page.getByTestId('memories-table').locator('th').allInnerTexts();
    expect(headers).toContain('Effective importance');
    expect(headers).not.toContain('Now');
    await page.goto(`${readOnly.origin}/#/memory/${store.historyId}`);
    expect(await page.getByTestId('accessed').innerText()).toBe('never');
    expect(await page.getByTestId('decay-summary').innerText()).toContain('never recalled: decaying since');
    await page.context().close();
  });

  it('refuses a branch merged into itself in words a user can act on', async () => {
    const page = await open(readOnly, '#/previews/branch');
    await page.getByLabel('Merge branch').selectOption('main');
    await page.getByLabel('into').selectOption('main');
    await page.getByRole('button', { name: 'Preview' }).click();
    await expect.poll(() => page.getByRole('alert').innerText()).toContain('choose two different branches');
    await page.context().close();
  });
});
