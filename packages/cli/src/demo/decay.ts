import { effectiveImportance, halfLifeFor, type Memory } from '@agentmem/core';
import { HISTORY_COLUMNS, historyRows } from '../output';
import type { DemoContext } from './demo-context';

const DAY_MS = 24 * 3_600_000;
/** Between the thresholds of importance 0.6 (3.6 half-lives) and 0.7 (3.8): prunes the less important, keeps the rest. */
const LATER_DAYS = 26;

/** Importance fades with a one-week half-life; weeks later the less important memories are pruned, and one is restored. */
export async function decaySection(d: DemoContext): Promise<void> {
  const { memory } = d;
  d.heading('Decay: weeks later, what stopped mattering leaves recall');
  const start = Date.now();
  const active: Memory[] = [];
  for await (const m of memory.memories()) active.push(m);
  active.sort((a, b) => b.importance - a.importance || a.content.localeCompare(b.content));
  d.print('effective importance = importance x 2^(-hours since last access / 168); below 0.05 a memory is pruned.\n');
  const at = (days: number, m: Memory) =>
    effectiveImportance(
      m.importance,
      Date.parse(m.lastAccessedAt),
      start + days * DAY_MS,
      halfLifeFor(m.type, undefined),
    );
  d.table(
    active.map((m) => ({
      content: m.content,
      importance: m.importance,
      week1: at(7, m),
      week2: at(14, m),
      later: at(LATER_DAYS, m),
    })),
    [
      { key: 'content', max: 50 },
      { key: 'importance', align: 'right' },
      { key: 'week1', header: '+1 WEEK', align: 'right' },
      { key: 'week2', header: '+2 WEEKS', align: 'right' },
      { key: 'later', header: `+${LATER_DAYS} DAYS`, align: 'right' },
    ],
  );

  const later = new Date(start + LATER_DAYS * DAY_MS).toISOString();
  const preview = await memory.applyDecay({ now: later, dryRun: true });
  d.print(`\n> agentmem decay --now ${later} --dry-run`);
  d.print(`  scanned ${preview.scanned}, decayed ${preview.decayed}, would prune ${preview.pruned} (nothing written)`);
  const run = await memory.applyDecay({ now: later });
  d.print(`> agentmem decay --now ${later}`);
  d.print(`  scanned ${run.scanned}, decayed ${run.decayed}, pruned ${run.pruned}, in ${run.durationMs.toFixed(0)} ms`);
  const kept: string[] = [];
  for await (const m of memory.memories()) kept.push(m.content);
  d.print(`  still in recall: the ${kept.length} memories of importance 0.7 or more`);

  // Running it again at the same instant changes nothing: decay is a function of time, not of runs.
  const again = await memory.applyDecay({ now: later });
  d.print(`> the same run again: pruned ${again.pruned} (decay depends on time, not on how often it runs)`);

  const pruned = active.find((m) => at(LATER_DAYS, m) < 0.05)!;
  await memory.restore(pruned.id);
  d.print(`\n> agentmem restore ${pruned.id}   ("${pruned.content}")\n`);
  const entries = await memory.history(pruned.id);
  d.table(historyRows(entries), HISTORY_COLUMNS);

  d.summary.decay = {
    preview: { now: preview.now, pruned: preview.pruned, decayed: preview.decayed },
    run: { now: run.now, scanned: run.scanned, decayed: run.decayed, pruned: run.pruned, untouched: run.untouched },
    again: { pruned: again.pruned },
    kept,
    restored: { id: pruned.id, history: entries.map((e) => e.action) },
  };
}
