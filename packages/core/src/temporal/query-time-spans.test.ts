import { describe, expect, it } from 'vitest';
import { AgentMemory } from '../agent-memory';
import { InMemoryBackend } from '../backends';
import { inTimeSpans, timeSpansInQuery } from './query-time-spans';

const NOW = Date.parse('2026-03-15T12:00:00Z');
const at = (iso: string) => Date.parse(iso);
const matches = (query: string, iso: string) => inTimeSpans(at(iso), timeSpansInQuery(query, NOW));

describe('timeSpansInQuery', () => {
  it('reads absolute days, months and ISO dates, a day either side', () => {
    expect(matches('What did Caroline do on 8 May, 2023?', '2023-05-08T18:00:00Z')).toBe(true);
    expect(matches('What did Caroline do on 8 May, 2023?', '2023-05-09T18:00:00Z')).toBe(true);
    expect(matches('What did Caroline do on 8 May, 2023?', '2023-05-11T00:00:00Z')).toBe(false);
    expect(matches('What happened on May 8th, 2023?', '2023-05-08T00:00:00Z')).toBe(true);
    expect(matches('notes from 2023-05-08', '2023-05-07T23:00:00Z')).toBe(true);
    expect(matches('Where did she travel in May 2023?', '2023-05-31T23:59:00Z')).toBe(true);
    expect(matches('Where did she travel in May 2023?', '2023-06-01T00:00:00Z')).toBe(false);
    expect(matches('What did he buy in June?', '2021-06-20T00:00:00Z')).toBe(true);
    expect(matches('What did he buy in June?', '2021-07-20T00:00:00Z')).toBe(false);
  });

  it('reads a range of days, with the month and year written once', () => {
    const q = 'Where was John between August 11 and August 15 2023?';
    expect(matches(q, '2023-08-11T13:08:00Z')).toBe(true);
    expect(matches(q, '2023-08-13T09:00:00Z')).toBe(true);
    expect(matches(q, '2023-08-15T20:00:00Z')).toBe(true);
    expect(matches(q, '2023-08-20T00:00:00Z')).toBe(false);
    expect(matches('what happened from 3 to 7 May 2023', '2023-05-05T00:00:00Z')).toBe(true);
    expect(matches('what happened from 3 to 7 May 2023', '2023-05-12T00:00:00Z')).toBe(false);
    expect(matches('between May 30 and June 2, 2023', '2023-05-31T12:00:00Z')).toBe(true);
    expect(matches('between December 28 and January 3, 2023', '2022-12-31T12:00:00Z')).toBe(true);
    expect(matches('between December 28 and January 3, 2023', '2023-12-31T12:00:00Z')).toBe(false);
  });

  it('reads times relative to now', () => {
    expect(matches('what did I say yesterday', '2026-03-14T09:00:00Z')).toBe(true);
    expect(matches('what did I say yesterday', '2026-03-10T09:00:00Z')).toBe(false);
    expect(matches('decisions from last week', '2026-03-05T09:00:00Z')).toBe(true);
    expect(matches('decisions from last week', '2026-02-01T09:00:00Z')).toBe(false);
    expect(matches('the bug we fixed three months ago', '2025-12-20T00:00:00Z')).toBe(true);
    expect(matches('the bug we fixed three months ago', '2026-03-10T00:00:00Z')).toBe(false);
  });

  it('reads a time however it is cased or abbreviated, next to words that are not one', () => {
    expect(matches('WHAT HAPPENED ON SEPT. 3, 2025?', '2025-09-03T12:00:00Z')).toBe(true);
    expect(matches('the Mid-June trip', '2024-06-20T00:00:00Z')).toBe(true);
    expect(matches('Sunday market plans from Yesterday', '2026-03-14T09:00:00Z')).toBe(true);
    expect(matches('what we said Tonight', '2026-03-15T20:00:00Z')).toBe(true);
    expect(matches('the call 2 days ago', '2026-03-13T09:00:00Z')).toBe(true);
    expect(matches('the call 2 days ago', '2026-03-01T09:00:00Z')).toBe(false);
    expect(timeSpansInQuery('Sunday market decisions', NOW)).toEqual([]);
  });

  it('names no time in ordinary questions ("may" as a verb, numbers that are not years)', () => {
    expect(timeSpansInQuery('May I ask what Melanie likes?', NOW)).toEqual([]);
    expect(timeSpansInQuery('Which of the 12 services owns billing?', NOW)).toEqual([]);
    expect(timeSpansInQuery('What did we decide?', NOW)).toEqual([]);
  });
});

describe('date evidence in recall', () => {
  it('ranks the memory from the day the query names first among equal keyword matches, and can be turned off', async () => {
    const memory = new AgentMemory({ backend: new InMemoryBackend(), now: () => NOW });
    const [, onDay] = await memory.rememberMany([
      { content: 'We went hiking by the lake', type: 'user', occurredAt: '2023-04-02T10:00:00Z', id: 'a-april' },
      {
        content: 'We went hiking by the lake',
        type: 'user',
        occurredAt: '2023-05-08T10:00:00Z',
        id: 'b-may',
        namespace: 'trips',
      },
    ]);
    const namespaces = ['user', 'trips'];
    const top = await memory.recall('Where did we go hiking on 8 May 2023?', { namespaces, reinforce: false });
    expect(top[0]?.memory.id).toBe(onDay!.id);
    const off = await memory.recall('Where did we go hiking on 8 May 2023?', {
      namespaces,
      reinforce: false,
      dateEvidence: false,
    });
    expect(off[0]?.memory.id).toBe('a-april'); // equal scores: id order
  });
});
