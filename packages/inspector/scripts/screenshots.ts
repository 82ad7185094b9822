/**
 * Regenerates the screenshots of docs/inspector.md from a seeded store in
 * headless Chromium: `npm run docs:screenshots -w @agentmem/inspector`.
 */
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { startInspector } from '../src/index';
import { findChromium, launchChromium, NO_CHROMIUM } from '../src/test-fixtures/browser';
import { seedStore } from '../src/test-fixtures/seed';

const out = fileURLToPath(new URL('../../../docs/inspector/', import.meta.url));

async function main(): Promise<void> {
  const chromium = findChromium();
  if (!chromium) throw new Error(NO_CHROMIUM);
  mkdirSync(out, { recursive: true });
  const store = await seedStore();
  const browser = await launchChromium(chromium);
  const inspector = await startInspector({
    memory: store.memory,
    label: '.agentmem/memory.db',
    settings: store.settings,
    allowWrites: true,
  });
  try {
    const shoot = async (page: Page, name: string) => {
      await page.waitForTimeout(300); // charts draw on the next frame
      await page.screenshot({ path: `${out}${name}.png`, fullPage: true });
      console.log(`docs/inspector/${name}.png`);
    };
    const open = async (hash: string, colorScheme: 'light' | 'dark' = 'light', width = 1280) => {
      const page = await (await browser.newContext({ viewport: { width, height: 800 }, colorScheme })).newPage();
      await page.goto(inspector.url);
      await page.goto(`${inspector.origin}/${hash}`);
      return page;
    };

    let page = await open('#/overview');
    await page.getByTestId('overview-table').waitFor();
    await page.locator('section[aria-labelledby=activity] canvas').waitFor();
    await shoot(page, 'overview');

    page = await open('#/overview', 'dark');
    await page.locator('section[aria-labelledby=activity] canvas').waitFor();
    await shoot(page, 'overview-dark');

    page = await open('#/memories?tag=infra');
    await page.getByTestId('memories-table').waitFor();
    await shoot(page, 'memories');

    page = await open(`#/memory/${store.historyId}`);
    await page.locator('section[aria-labelledby=decay] canvas').waitFor();
    await shoot(page, 'memory-detail');

    page = await open('#/recall');
    await page.getByTestId('recall-query').fill('which database and cluster do we run');
    await page.getByRole('button', { name: 'Explain' }).click();
    await page.getByTestId('context-block').waitFor();
    await shoot(page, 'recall');

    page = await open('#/recall', 'light', 390);
    await page.getByTestId('recall-query').fill('which database and cluster do we run');
    await page.getByRole('button', { name: 'Explain' }).click();
    await page.getByTestId('context-block').waitFor();
    await shoot(page, 'recall-phone');

    page = await open('#/skills');
    await page.getByTestId('skills-message').fill('add a migration for the users table');
    await page.getByRole('button', { name: 'Activate' }).click();
    await page.getByTestId('skills-verdicts').waitFor();
    await shoot(page, 'skills');

    page = await open('#/previews/snapshot');
    await page.getByTestId('snapshot-path').fill(store.snapshotPath);
    await page.getByRole('button', { name: 'Preview' }).click();
    await page.getByTestId('conflicts').waitFor();
    await shoot(page, 'snapshot-merge');

    page = await open('#/previews/decay');
    await page.getByTestId('decay-date').fill(new Date(Date.now() + 28 * 86_400_000).toISOString().slice(0, 10));
    await page.getByRole('button', { name: 'Dry run' }).click();
    await page.getByTestId('decay-report').waitFor();
    await shoot(page, 'decay-preview');
  } finally {
    await browser.close();
    await inspector.close();
    await store.cleanup();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
