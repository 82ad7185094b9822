/**
 * Inspector on a 100k-memory SQLite store: time to first paint of the
 * overview in headless Chromium, and the server-side cost of each view's
 * first request.
 *
 *   npm run bench -- inspector [--count 100000]
 *
 * Needs a Chromium (Debian: `apt-get install -y chromium`, or AGENTMEM_CHROMIUM).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  type BackendRecord,
  contentHash,
  HISTORY_NAMESPACE,
  KIND,
  MEMORY_TYPES,
  type Memory,
  memoryToRecord,
  namespaceFor,
} from '@agentmem/core';
import { seededRandom } from '@agentmem/core/testing';
import { startInspector } from '@agentmem/inspector';
import { createSqliteMemory } from '@agentmem/sqlite';
import { findChromium, launchChromium, NO_CHROMIUM } from '../packages/inspector/src/test-fixtures/browser';
import { http, login } from '../packages/inspector/src/test-fixtures/http';

const HOUR = 3_600_000;

/** Memories over two tenants and three branches, each with its `create` history entry. */
function* records(count: number): Generator<BackendRecord> {
  const random = seededRandom(7);
  const now = Date.now();
  for (let i = 0; i < count; i++) {
    const type = MEMORY_TYPES[i % MEMORY_TYPES.length]!;
    const content = `Synthetic fact number ${i} about component ${i % 977}`;
    const at = new Date(now - random() * 60 * 24 * HOUR).toISOString();
    const tenant = i % 10 === 0 ? 'tenant-b' : '';
    const memory: Memory = {
      specificationVersion: 'v1',
      id: `mem_bench_${String(i).padStart(7, '0')}`,
      content,
      type,
      importance: 0.2 + 0.8 * random(),
      tags: i % 7 === 0 ? ['sampled'] : [],
      namespace: namespaceFor(type, ['main', 'feature-a', 'feature-b'][i % 3]!),
      tenant,
      createdAt: at,
      occurredAt: at,
      updatedAt: at,
      lastAccessedAt: at,
      accessCount: 0,
      contentHash: contentHash(content),
      ...(i % 50 === 0 ? { prunedAt: at } : {}),
      metadata: {},
    };
    yield memoryToRecord(memory, undefined);
    const entry = { id: `hist_bench_${i}`, memoryId: memory.id, action: 'create', at, memory };
    yield {
      id: entry.id,
      namespace: HISTORY_NAMESPACE,
      tenant,
      text: '',
      attributes: { kind: KIND.history, memoryId: memory.id, action: 'create', at: Date.parse(at) },
      payload: entry as unknown as BackendRecord['payload'],
    };
  }
}

async function timed(fn: () => Promise<unknown>): Promise<{ ms: number; cpuMs: number }> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  await fn();
  const used = process.cpuUsage(cpu);
  return { ms: performance.now() - start, cpuMs: (used.user + used.system) / 1000 };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { count: { type: 'string', default: '100000' } } });
  const count = Number(values.count);
  const chromium = findChromium();
  if (!chromium) {
    console.log(`inspector bench skipped: ${NO_CHROMIUM}`);
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'agentmem-inspector-bench-'));
  const memory = await createSqliteMemory({ path: join(dir, 'bench.db'), branch: 'main' });
  try {
    let batch: BackendRecord[] = [];
    for (const r of records(count)) {
      batch.push(r);
      if (batch.length === 10_000) {
        await memory.backend.upsert(batch);
        batch = [];
      }
    }
    await memory.backend.upsert(batch);
    const inspector = await startInspector({ memory });
    const browser = await launchChromium(chromium);
    try {
      const session = await login(inspector.url); // also builds the UI bundle once (a build ships it prebuilt)
      await http(`${session.origin}/assets/app.js`, { headers: session.headers });
      console.log(`inspector bench: ${count} memories (+${count} history entries), SQLite, 2 tenants, 3 branches`);
      console.log('server, first request of each view (wall ms / CPU ms of this process):');
      for (const path of [
        '/api/overview',
        '/api/memories?tenant=*&limit=50',
        '/api/memories?tenant=*&tag=sampled&limit=50',
        '/api/memories?tenant=*&q=component%20976&limit=50',
        '/api/recall?q=synthetic%20fact%20component%2042',
        '/api/timeline',
      ]) {
        const t = await timed(() => http(`${session.origin}${path}`, { headers: session.headers }));
        console.log(`  ${path.padEnd(50)} ${t.ms.toFixed(0).padStart(6)} ms ${t.cpuMs.toFixed(0).padStart(6)} ms CPU`);
      }
      const paints: number[] = [];
      const overview: number[] = [];
      for (let i = 0; i < 3; i++) {
        const context = await browser.newContext();
        const page = await context.newPage();
        await page.goto(inspector.url);
        await page.waitForFunction(() => performance.getEntriesByName('agentmem:overview').length > 0, null, {
          timeout: 30_000,
        });
        const m = await page.evaluate(() => ({
          fcp: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? Number.NaN,
          overview: performance.getEntriesByName('agentmem:overview')[0]!.startTime,
        }));
        paints.push(m.fcp);
        overview.push(m.overview);
        await context.close();
      }
      console.log('browser, from navigation start (median of 3, Chromium headless):');
      console.log(`  first contentful paint (shell)        ${median(paints).toFixed(0).padStart(6)} ms`);
      const first = median(overview);
      console.log(`  overview counts painted               ${first.toFixed(0).padStart(6)} ms`);
      console.log(
        `  goal: overview painted in < 1000 ms: ${count < 100_000 ? 'not judged (--count < 100000)' : first < 1000 ? 'met' : 'NOT met'}`,
      );
    } finally {
      await browser.close();
      await inspector.close();
    }
  } finally {
    await memory.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
