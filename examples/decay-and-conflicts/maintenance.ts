/**
 * A month in the life of an assistant's memory: facts are written through the
 * conflict check (a changed rate limit supersedes the old one), a nightly job
 * runs `applyDecay`, the fact the assistant keeps recalling stays while the
 * ones nobody used are pruned (user preferences have a longer half-life), one
 * is restored, and `compact` clears the rest.
 * Time is simulated with the store's clock, so it runs in a second.
 *
 *   npx tsx examples/decay-and-conflicts/maintenance.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { DecayReport } from '@agentmem/core';
import { createSqliteMemory } from '@agentmem/sqlite';

const DAY = 24 * 3_600_000;
const START = Date.parse('2026-01-05T09:00:00Z');

export interface MaintenanceResult {
  /** What the conflict check did with the second rate limit. */
  conflict: { similarity: number; superseded: string[] };
  /** One report per nightly run. */
  nights: DecayReport[];
  /** Memories still in recall after 30 days. */
  active: string[];
  restored: string;
  compacted: number;
}

export async function runMaintenance(log: (line: string) => void = console.log): Promise<MaintenanceResult> {
  const dir = mkdtempSync(join(tmpdir(), 'agentmem-maintenance-'));
  const clock = { now: START };
  const memory = await createSqliteMemory({
    path: join(dir, 'memory.db'),
    branch: 'main',
    // Preferences should outlive a month without use; everything else fades with the default week.
    halfLifeHours: { user: 24 * 90 },
    now: () => clock.now,
  });
  try {
    for (const [content, type, importance] of [
      ['The user prefers answers in British English', 'user', 0.9],
      ['The staging database is refreshed every Sunday', 'project', 0.5],
      ['The on-call handbook lives in the ops wiki', 'reference', 0.4],
      ['The API rate limit is 100 requests per minute', 'project', 0.7],
    ] as const) {
      await memory.rememberWithConflictCheck({ content, type, importance });
    }
    clock.now += 3 * DAY;
    const changed = await memory.rememberWithConflictCheck({
      content: 'The API rate limit is 500 requests per minute',
      type: 'project',
      importance: 0.7,
    });
    const [conflict] = changed.conflicts;
    log(
      `day 3: "${changed.memory!.content}" supersedes "${conflict!.memory.content}" (similarity ${conflict!.similarity.toFixed(2)})`,
    );

    const nights: DecayReport[] = [];
    for (let day = 1; day <= 30; day++) {
      clock.now = START + day * DAY;
      // The assistant keeps needing the rate limit: every recall restarts that memory's clock.
      if (day % 5 === 0) await memory.recall('what is the API rate limit?', { k: 1 });
      const report = await memory.applyDecay(); // the nightly job, at the store's clock
      nights.push(report);
      if (report.pruned > 0)
        log(`night ${day}: pruned ${report.pruned} (scanned ${report.scanned}, decayed ${report.decayed})`);
    }

    const active: string[] = [];
    for await (const m of memory.memories()) active.push(m.content);
    log(`after 30 days, still in recall: ${active.map((c) => `"${c}"`).join(', ')}`);

    const pruned = [];
    for await (const m of memory.memories({ includeInactive: true })) if (m.prunedAt) pruned.push(m);
    const handbook = pruned.find((m) => m.content.includes('handbook'))!;
    await memory.restore(handbook.id);
    log(`restored "${handbook.content}": ${(await memory.history(handbook.id)).map((h) => h.action).join(' -> ')}`);

    const { removed } = await memory.compact();
    log(`compact: deleted ${removed} pruned ${removed === 1 ? 'memory' : 'memories'} for good (history stays)`);
    return {
      conflict: { similarity: conflict!.similarity, superseded: changed.superseded },
      nights,
      active,
      restored: handbook.content,
      compacted: removed,
    };
  } finally {
    await memory.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await runMaintenance();
