import type { MemoryInput } from '@agentmem/core';
import { HISTORY_COLUMNS, historyRows, RECALL_COLUMNS, recallJson, recallRows } from '../output';
import type { DemoContext } from './demo-context';

/** A dozen memories an assistant might have gathered while helping on a checkout service. */
export const DEMO_MEMORIES: MemoryInput[] = [
  {
    type: 'user',
    content: 'Dana prefers TypeScript in strict mode and small pure functions.',
    importance: 0.7,
    tags: ['style'],
  },
  {
    type: 'user',
    content: 'Dana works from Berlin (Europe/Berlin time zone) and reviews pull requests in the morning.',
  },
  {
    type: 'user',
    content: 'Dana wants short answers: the code example first, the explanation after.',
    importance: 0.6,
  },
  {
    type: 'feedback',
    content:
      'Do not mock the database in integration tests: last quarter mocked tests passed while the real migration failed.',
    importance: 0.9,
    tags: ['testing'],
  },
  {
    type: 'feedback',
    content: 'Run npm run typecheck before proposing a commit; CI rejects type errors.',
    importance: 0.8,
  },
  {
    type: 'feedback',
    content: 'Never force-push to main; open a pull request even for one-line fixes.',
    importance: 0.8,
  },
  {
    type: 'project',
    content: 'The checkout service stores orders in PostgreSQL 16; payments are confirmed by Stripe webhooks.',
    importance: 0.7,
    tags: ['architecture'],
  },
  {
    type: 'project',
    content: 'Release 2.4 freezes on Friday: only bug fixes are merged after Wednesday.',
    importance: 0.6,
  },
  {
    type: 'project',
    content: 'The Stripe webhook handler must be idempotent: Stripe retries failed events for up to three days.',
    importance: 0.9,
    tags: ['payments'],
  },
  {
    type: 'reference',
    content:
      'Payment incident runbook: https://wiki.example.com/runbooks/payments (on-call rotation "checkout" in PagerDuty).',
    importance: 0.8,
    tags: ['oncall'],
  },
  { type: 'reference', content: 'The Grafana dashboard "checkout-latency" tracks p95 latency of the order API.' },
  {
    type: 'reference',
    content: 'API style guide: docs/api-style.md (plural resource names, cursor pagination, RFC 9457 errors).',
  },
];

const QUERIES = [
  'how should I test the database layer?',
  'stripe webhook retries',
  'where is the on-call runbook for payment incidents?',
];

const PROMPT_MESSAGE =
  'I am fixing a bug in the Stripe webhook handler. Anything I should keep in mind before I commit?';

/** Remember, recall with scores and signals, the prompt block an adapter injects, and one memory's history. */
export async function memoriesSection(d: DemoContext): Promise<void> {
  const { memory } = d;
  d.heading('Memories: remember');
  const stored = await memory.rememberMany(DEMO_MEMORIES);
  d.print(
    `Remembered ${stored.length} memories in one embedding batch. user/feedback are global; project/reference belong to branch "${memory.branch}".\n`,
  );
  d.table(
    stored.map((m) => ({
      id: m.id,
      type: m.type,
      importance: m.importance,
      namespace: m.namespace,
      content: m.content,
    })),
    [{ key: 'id', max: 30 }, 'type', { key: 'importance', align: 'right' }, 'namespace', { key: 'content', max: 60 }],
  );

  d.heading('Recall: hybrid dense + keyword, fused by rank');
  d.print(
    'score = relevance (weighted reciprocal rank fusion) x decayed importance; signals = rank and raw score per list.',
  );
  const recalls = [];
  for (const query of QUERIES) {
    const results = await memory.recall(query, { k: 3 });
    d.print(`\n> recall "${query}"`);
    d.table(recallRows(results), RECALL_COLUMNS);
    recalls.push({ query, results: recallJson(results).map(({ memory: _, ...rest }) => rest) });
  }

  d.heading('Prompt injection: memory.contextFor(message).block');
  const context = await memory.contextFor(PROMPT_MESSAGE);
  d.print(`> user: ${PROMPT_MESSAGE}\n`);
  d.print(context.block || '(nothing relevant: no block is injected)');

  d.heading('History: every change is recorded');
  const freeze = stored.find((m) => m.content.startsWith('Release 2.4'))!;
  await memory.update(freeze.id, {
    content: 'Release 2.4 freeze moved to Monday: only bug fixes are merged after Friday.',
    importance: 0.7,
  });
  const entries = await memory.history(freeze.id);
  d.print(`> history ${freeze.id} (after an update)\n`);
  d.table(historyRows(entries), HISTORY_COLUMNS);

  d.summary.memories = {
    remembered: stored.length,
    byType: Object.fromEntries(
      ['user', 'feedback', 'project', 'reference'].map((t) => [t, stored.filter((m) => m.type === t).length]),
    ),
    recalls,
    prompt: { message: PROMPT_MESSAGE, memories: context.memories.length, block: context.block },
    history: {
      id: freeze.id,
      entries: entries.map((e) => ({ action: e.action, at: e.at, content: e.memory.content })),
    },
  };
}
