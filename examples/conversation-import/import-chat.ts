/**
 * Importing a chat history with its dates: two sessions between a user and an
 * assistant, stored with `rememberConversation` (one memory per turn, the
 * turn's time as `occurredAt`, the session date and neighbouring turns as
 * context). The question "How often does Sam go climbing?" is answered by
 * "Every Tuesday and Thursday after work", which shares no word with it but
 * the speaker's name: the turn before it, in its context, finds it (the
 * asking turn itself ranks above it, as a match in the content should), and
 * the prompt block shows the turns alone, never their context.
 * `after` / `before` then select by when things happened, not when they were imported.
 *
 *   npx tsx examples/conversation-import/import-chat.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ConversationTurn } from '@agentmem/core';
import { createSqliteMemory } from '@agentmem/sqlite';

/** An exported chat: sessions with their start time, turns with speaker and text. */
const HISTORY: { id: string; at: string; turns: ConversationTurn[] }[] = [
  {
    id: 'chat-2025-03-04',
    at: '2025-03-04T18:30:00Z',
    turns: [
      { speaker: 'Sam', text: 'I finally joined the bouldering gym near the station.' },
      { speaker: 'assistant', text: 'Nice! How often do you plan to go climbing there?' },
      { speaker: 'Sam', text: 'Every Tuesday and Thursday after work.' },
      { speaker: 'assistant', text: 'A steady routine, good for your fingers too.' },
    ],
  },
  {
    id: 'chat-2025-09-12',
    at: '2025-09-12T08:10:00Z',
    turns: [
      { speaker: 'Sam', text: 'We adopted a greyhound called Pixel last weekend.' },
      { speaker: 'assistant', text: 'Congratulations! How is Pixel settling in?' },
      { speaker: 'Sam', text: 'Sleeps all day on the sofa, as promised.' },
    ],
  },
];

export interface ImportResult {
  stored: number;
  /** The top three turns for the question, and what the prompt block shows. */
  top: string[];
  block: string;
  /** Contents of what happened from June 2025 on. */
  since: string[];
}

export async function importChat(log: (line: string) => void = console.log): Promise<ImportResult> {
  const dir = mkdtempSync(join(tmpdir(), 'agentmem-conversation-'));
  // The import runs a year later: decay counts from now (the last access), not from 2025.
  const memory = await createSqliteMemory({
    path: join(dir, 'memory.db'),
    now: () => Date.parse('2026-03-01T00:00:00Z'),
  });
  try {
    let stored = 0;
    for (const session of HISTORY) {
      const memories = await memory.rememberConversation(session.turns, { sessionId: session.id, at: session.at });
      stored += memories.length;
    }
    log(`Imported ${stored} turns from ${HISTORY.length} sessions.`);

    const question = 'How often does Sam go climbing?';
    const results = await memory.recall(question, { k: 3 });
    log(question);
    for (const r of results) log(`  -> ${r.memory.content} (${r.memory.occurredAt.slice(0, 10)})`);
    const { block } = await memory.contextFor(question, { k: 3 });
    log(block);

    const since = (await memory.recall('Sam', { k: 10, after: '2025-06-01' })).map((r) => r.memory.content);
    log(`Since June 2025: ${since.length} turns.`);
    return { stored, top: results.map((r) => r.memory.content), block, since };
  } finally {
    await memory.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await importChat();
