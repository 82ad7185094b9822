import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AgentMemory, createAgentMemory, InMemoryBackend } from '@agentmem/core';
import { createSqliteMemory, sqliteSnapshotFormat } from '@agentmem/sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

let dir: string;
const open: AgentMemory[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'agentmem-event-time-'));
});
afterEach(async () => {
  for (const m of open.splice(0)) await m.close().catch(() => {});
  rmSync(dir, { recursive: true, force: true });
});

describe('occurredAt and context through snapshot and merge', () => {
  it('a merge keeps the source memory’s event time and context; the target finds it by context and filters by time', async () => {
    const source = await createSqliteMemory({ path: join(dir, 'a.db'), now: () => Date.parse('2026-01-01T00:00:00Z') });
    open.push(source);
    const [turn] = await source.rememberConversation(
      [
        { speaker: 'Caroline', text: 'Do you still go to that pottery class?' },
        { speaker: 'Melanie', text: 'Yes, every Saturday morning.' },
      ],
      { at: '2023-05-08T13:56:00Z', sessionId: 's1' },
    );
    const answer = (await source.recall('Yes every Saturday', { k: 1, reinforce: false }))[0]!.memory;
    await source.snapshot(join(dir, 'handoff.db'));

    // Merged a month later into a store on another backend: times are the source's, not the merge's.
    const target = await createAgentMemory({
      backend: new InMemoryBackend(),
      snapshotFormat: sqliteSnapshotFormat,
      now: () => Date.parse('2026-02-01T00:00:00Z'),
    });
    open.push(target);
    await target.merge(join(dir, 'handoff.db'));
    const merged = await target.get(answer.id);
    expect(merged).toMatchObject({
      occurredAt: '2023-05-08T13:56:00.000Z',
      createdAt: answer.createdAt,
      context: answer.context,
    });
    expect(turn!.occurredAt).toBe('2023-05-08T13:56:00.000Z');
    const found = await target.recall('how often does Melanie go to pottery class', { k: 2, reinforce: false });
    expect(found.map((r) => r.memory.id)).toContain(answer.id);
    expect(await target.recall('pottery', { after: '2024-01-01', reinforce: false })).toEqual([]);
    expect((await target.recall('pottery', { before: '2024-01-01', reinforce: false })).length).toBe(2);
  });
});
