/**
 * kill -9 in a process that writes after the keyword index was saved (the catch-up case of a hook
 * that remembers in one process and recalls in the next): each write reaches that process's restored
 * index and logs its ids; a fresh process then re-reads them into its own restored index (id buckets,
 * pending postings). After each kill the file must pass SQLite's integrity check and open, every
 * acknowledged memory must be there, and keyword search from the saved index plus its change log must
 * rank exactly as an index rebuilt from the records.
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HashingEmbedder, MemoryStore } from '@agentmem/core';
import { SqliteBackend } from '@agentmem/sqlite';
import Database from 'better-sqlite3';
import { bulkContent } from './bulk-ingest';
import { type CrashResult, checkTrial, emptyResult, runChild, seededRandom } from './crash-trials';
import { keywordSearchMatchesRebuild } from './keyword-rebuild';

const child = fileURLToPath(new URL('./catch-up-child.ts', import.meta.url));
const QUERIES = ['service port', 'fact 7 uses', 'port 9004 moved', 'later note 12 zone'];

/** The content of the i-th memory written after the save. */
export function catchUpContent(i: number): string {
  return `later note ${i}: service ${i % 13} answers on port ${5000 + i} in zone ${['west', 'south'][i % 2]}`;
}

export async function catchUpTrials(short: boolean, seed = 1): Promise<CrashResult> {
  const trials = short ? 3 : 12;
  const count = short ? 20 : 60;
  const dir = mkdtempSync(join(tmpdir(), 'agentmem-faults-catch-up-'));
  const random = seededRandom(seed);
  const result = emptyResult(`writes after a keyword save (${count} remember calls, updates, forgets)`);
  try {
    // The saved store: 1,500 memories, a recall, close (which saves the keyword index).
    const base = join(dir, 'base.db');
    const store = await MemoryStore.open({
      backend: new SqliteBackend({ path: base }),
      embedder: new HashingEmbedder(),
    });
    await store.rememberMany(
      Array.from({ length: 1500 }, (_, i) => ({ content: bulkContent(i), type: 'user' as const })),
    );
    await store.recall('service port', { k: 5, reinforce: false });
    await store.close();
    const check = new Database(base);
    const snapshots = check.prepare('SELECT count(*) FROM keyword_snapshot').pluck().get() as number;
    check.close();
    if (snapshots !== 1) throw new Error('the base store has no saved keyword index');
    copyFileSync(base, join(dir, 'full.db'));
    const full = await runChild(child, [join(dir, 'full.db'), String(count)], undefined);
    if (!full.out.includes('closed\n')) throw new Error(`the writer did not complete without a kill: ${full.stderr}`);
    for (let t = 0; t < trials; t++) {
      const db = join(dir, `trial-${t}.db`);
      copyFileSync(base, db);
      const run = await runChild(child, [db, String(count)], { on: 'started', ms: random() * full.ms });
      const acks = [...run.out.matchAll(/ack (\d+)/g)].map((m) => Number(m[1]));
      const acked = acks.length ? Math.max(...acks) : 0;
      await checkTrial(result, t, db, !run.out.includes('closed\n'), async (fail) => {
        const reopened = await MemoryStore.open({
          backend: new SqliteBackend({ path: db }),
          embedder: new HashingEmbedder(),
        });
        const contents = new Set<string>();
        for await (const m of reopened.memories({ includeInactive: true })) contents.add(m.content);
        await reopened.close();
        let lost = 0;
        for (let i = 0; i < acked; i++) if (!contents.has(catchUpContent(i))) lost++;
        if (lost > 0) fail(`${lost} acknowledged memories missing`);
        result.recordsLost += lost;
        if (!(await keywordSearchMatchesRebuild(db, QUERIES, false)))
          fail('keyword search caught up from the saved index differs from a rebuild');
      });
    }
    return result;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
