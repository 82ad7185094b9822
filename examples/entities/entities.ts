/**
 * Entities and time as people write them: two chat sessions stored with
 * `rememberConversation`. Each turn is read for the people, places, titles and
 * dates it mentions ("yesterday" said on 14 March is 13 March), memories are
 * linked through them, and recall uses the links: a question about Jean
 * reaches the turns that mention her, and a question that asks when puts the
 * turn that says when first.
 *
 *   npx tsx examples/entities/entities.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createSqliteMemory } from '@agentmem/sqlite';

export interface EntitiesResult {
  entities: string[];
  jean: string[];
  neighbours: string[];
  when: { content: string; dates: string[] }[];
}

export async function showEntities(log: (line: string) => void = console.log): Promise<EntitiesResult> {
  const dir = mkdtempSync(join(tmpdir(), 'agentmem-entities-'));
  const memory = await createSqliteMemory({
    path: join(dir, 'memory.db'),
    now: () => Date.parse('2026-03-01T00:00:00Z'),
  });
  try {
    await memory.rememberConversation(
      [
        { speaker: 'Maria', text: 'I dropped off soup at the Hope shelter with Jean yesterday.' },
        { speaker: 'John', text: 'That is kind of you both. How is the shelter doing?' },
        { speaker: 'Maria', text: 'Busy! We plan to go back next Saturday.' },
      ],
      { sessionId: 'march-14', at: '2025-03-14T18:00:00Z' },
    );
    await memory.rememberConversation(
      [
        { speaker: 'John', text: 'I finally read "The Hobbit" on the train to Lisbon.' },
        { speaker: 'Maria', text: 'Jean loves that book, she reads it every winter.' },
      ],
      { sessionId: 'april-2', at: '2025-04-02T09:00:00Z' },
    );

    const { entities } = await memory.entities();
    log('Entities:');
    for (const e of entities) log(`  ${e.name} (${e.kind}, ${e.count} ${e.count === 1 ? 'memory' : 'memories'})`);

    const jean = (await memory.entityMemories('Jean')).map((m) => m.content);
    log('\nMemories of Jean:');
    for (const c of jean) log(`  ${c}`);
    const neighbours = (await memory.entityNeighbours('Jean')).map((n) => `${n.name} (${n.shared})`);
    log(`Her neighbours: ${neighbours.join(', ')}`);

    const results = await memory.recall('When did Maria go to the shelter?', { k: 2, reinforce: false });
    const when = results.map((r) => ({
      content: r.memory.content,
      dates: (r.memory.entities ?? []).filter((e) => e.kind === 'date').map((e) => `${e.text ?? e.name} = ${e.name}`),
    }));
    log('\nWhen did Maria go to the shelter?');
    for (const w of when) log(`  ${w.content}${w.dates.length ? `  [${w.dates.join('; ')}]` : ''}`);
    return { entities: entities.map((e) => e.name), jean, neighbours, when };
  } finally {
    await memory.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await showEntities();
