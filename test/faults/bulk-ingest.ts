/**
 * kill -9 during a bulk ingest (rememberMany in batches, then close, which
 * saves the keyword index into the file): after each kill the file must pass
 * SQLite's integrity check and open, every memory of an acknowledged batch
 * must be there, no batch may be there in part, and keyword search from the
 * saved index and its change log must rank exactly as an index rebuilt from
 * the records.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HashingEmbedder, MemoryStore } from '@agentmem/core';
import { SqliteBackend } from '@agentmem/sqlite';
import { type CrashResult, checkTrial, emptyResult, runChild, seededRandom } from './crash-trials';
import { keywordSearchMatchesRebuild } from './keyword-rebuild';

const child = fileURLToPath(new URL('./bulk-ingest-child.ts', import.meta.url));
const QUERIES = ['service port', 'fact 7 uses', 'port 3100', 'service 3 fact'];

/** The content of the i-th memory of the ingest (unique, so each is found again by it). */
export function bulkContent(i: number): string {
  return `bulk fact ${i}: service ${i % 17} listens on port ${3000 + i} in zone ${['north', 'south', 'east'][i % 3]}`;
}

/** Runs the child; kills it `afterMs` after it started (undefined: let it finish). Highest ack and time. */
async function runIngestChild(
  argv: string[],
  afterMs: number | undefined,
): Promise<{ closed: boolean; acked: number; ms: number; stderr: string }> {
  const { out, stderr, ms } = await runChild(
    child,
    argv,
    afterMs === undefined ? undefined : { on: 'started', ms: afterMs },
  );
  const acks = [...out.matchAll(/ack (\d+)/g)].map((m) => Number(m[1]));
  return { closed: out.includes('closed\n'), acked: acks.length ? Math.max(...acks) : 0, ms, stderr };
}

export async function bulkIngestTrials(short: boolean, seed = 1): Promise<CrashResult> {
  const trials = short ? 3 : 12;
  const count = short ? 2000 : 6000;
  const batch = short ? 250 : 500;
  const dir = mkdtempSync(join(tmpdir(), 'agentmem-faults-ingest-'));
  const random = seededRandom(seed);
  const result = emptyResult(`bulk ingest (rememberMany, ${count / batch} batches of ${batch}, then close)`);
  try {
    const full = await runIngestChild([join(dir, 'full.db'), String(count), String(batch)], undefined);
    if (!full.closed) throw new Error(`the bulk ingest did not complete without a kill: ${full.stderr}`);
    for (let t = 0; t < trials; t++) {
      const db = join(dir, `trial-${t}.db`);
      const run = await runIngestChild([db, String(count), String(batch)], random() * full.ms * 1.1);
      await checkTrial(result, t, db, !run.closed, async (fail) => {
        const store = await MemoryStore.open({
          backend: new SqliteBackend({ path: db }),
          embedder: new HashingEmbedder(),
        });
        const contents = new Set<string>();
        for await (const m of store.memories({ includeInactive: true })) contents.add(m.content);
        await store.close();
        let lost = 0;
        for (let i = 0; i < run.acked; i++) if (!contents.has(bulkContent(i))) lost++;
        if (lost > 0) fail(`${lost} acknowledged memories missing`);
        result.recordsLost += lost;
        // Whole batches only: the memories present are the first n, n a multiple of the batch (or all).
        const present = contents.size;
        let whole = present % batch === 0 || present === count;
        for (let i = 0; i < present; i++) whole &&= contents.has(bulkContent(i));
        if (!whole) {
          result.halfApplied++;
          fail(`${present} memories: not whole batches`);
        }
        if (!(await keywordSearchMatchesRebuild(db, QUERIES, true)))
          fail('keyword search from the saved index differs from a rebuild');
      });
    }
    return result;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
