import type { ConflictCheckResult } from '@agentmem/core';
import { HISTORY_COLUMNS, historyRows } from '../output';
import type { DemoContext } from './demo-context';

const OLD_FACT = 'The database is PostgreSQL 14';
const NEW_FACT = 'The database is PostgreSQL 16';
const UNRELATED = 'Orders are archived to S3 after 90 days';
const QUESTION = 'Which database version do we run?';

/** A fact that changed: the new one supersedes the old; an unrelated fact conflicts with nothing. */
export async function conflictsSection(d: DemoContext): Promise<void> {
  const { memory } = d;
  d.heading('Conflicts: a changed fact supersedes the old one');
  d.print(
    `rememberWithConflictCheck compares a new memory with the same type and scope; cosine >= ${memory.embedder.conflictThreshold ?? 0.8} ` +
      `(${memory.embedder.id}'s threshold) with different content is a conflict. Default resolution: supersede.\n`,
  );
  const steps: { content: string; result: ConflictCheckResult }[] = [];
  for (const content of [OLD_FACT, NEW_FACT, UNRELATED]) {
    const result = await memory.rememberWithConflictCheck({ content, type: 'project' });
    steps.push({ content, result });
    d.print(`> remember "${content}" (project)`);
    if (result.conflicts.length === 0) d.print('  no conflict: stored');
    for (const c of result.conflicts) {
      d.print(`  conflict with "${c.memory.content}" (similarity ${c.similarity.toFixed(3)}) -> ${result.resolution}`);
    }
  }
  const oldId = steps[0]!.result.memory!.id;
  const recalled = await memory.recall(QUESTION, { k: 3, types: ['project'] });
  d.print(`\n> recall "${QUESTION}"`);
  d.table(
    recalled.map((r) => ({ id: r.memory.id, score: r.score, content: r.memory.content })),
    [
      { key: 'id', max: 30 },
      { key: 'score', align: 'right' },
      { key: 'content', max: 70 },
    ],
  );
  const entries = await memory.history(oldId);
  d.print(
    `\n> history ${oldId} (the old fact: out of recall, still in history; \`agentmem restore\` brings it back)\n`,
  );
  d.table(historyRows(entries), HISTORY_COLUMNS);

  d.summary.conflicts = {
    threshold: memory.embedder.conflictThreshold ?? 0.8,
    writes: steps.map(({ content, result }) => ({
      content,
      stored: result.stored,
      resolution: result.resolution,
      conflicts: result.conflicts.map((c) => ({ content: c.memory.content, similarity: c.similarity })),
      superseded: result.superseded,
    })),
    recall: { query: QUESTION, results: recalled.map((r) => r.memory.content) },
    history: entries.map((e) => e.action),
  };
}
