import { existsSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { useFreshStore } from './run-cli';

const store = useFreshStore();
const cli = store.cli;

describe('event time and context in the CLI', () => {
  it('remember --at and --context store them; recall finds the memory by its context; export carries both', async () => {
    const run = await cli(
      'remember',
      'Yes, every Saturday morning.',
      '--type',
      'user',
      '--at',
      '2023-05-08T13:56:00Z',
      '--context',
      'Do you still go to the pottery class?',
      '--json',
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.json().memory).toMatchObject({
      occurredAt: '2023-05-08T13:56:00.000Z',
      context: 'Do you still go to the pottery class?',
    });
    const found = await cli('recall', 'pottery class', '--json');
    expect(found.json().results[0]).toMatchObject({ content: 'Yes, every Saturday morning.' });
    const [line] = (await cli('export')).stdout.trim().split('\n');
    expect(JSON.parse(line!)).toMatchObject({ occurredAt: '2023-05-08T13:56:00.000Z', context: expect.any(String) });
  });

  it('refuses an --at that is not a date, writing nothing', async () => {
    const run = await cli('remember', 'Something.', '--type', 'user', '--at', 'last tuesday');
    expect(run.code).not.toBe(0);
    // A usage error naming the flag (it spoke of the API's occurredAt); refused before any store is opened.
    expect(run.stderr).toMatch(/USAGE.*--at <when>.*ISO 8601 date/);
    expect(existsSync(store.db)).toBe(false);
  });

  it('import reads occurredAt and context columns, and checks occurredAt', async () => {
    const file = store.tmp.path('history.jsonl');
    writeFileSync(
      file,
      [
        JSON.stringify({
          content: 'Moved to Lisbon.',
          type: 'user',
          occurredAt: '2024-01-10T09:00:00Z',
          context: 'relocation chat',
        }),
        JSON.stringify({ content: 'Started a new job.', type: 'user' }),
      ].join('\n'),
    );
    expect((await cli('import', file)).code).toBe(0);
    const lines = (await cli('export')).stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const moved = lines.find((m) => m.content === 'Moved to Lisbon.');
    expect(moved).toMatchObject({ occurredAt: '2024-01-10T09:00:00.000Z', context: 'relocation chat' });
    const job = lines.find((m) => m.content === 'Started a new job.');
    expect(job.occurredAt).toBe(job.createdAt);
    const bad = store.tmp.path('bad.jsonl');
    writeFileSync(bad, JSON.stringify({ content: 'x', type: 'user', occurredAt: 'someday' }));
    const run = await cli('import', bad);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/line 1: occurredAt must be an ISO 8601 date or date-time/);
  });
});
