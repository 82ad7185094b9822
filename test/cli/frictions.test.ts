// Small frictions a new user met in a walkthrough of the CLI, each checked as the user meets it.
import { describe, expect, it } from 'vitest';
import { runCli, useFreshStore } from './run-cli';

describe('recall --include-superseded', () => {
  const store = useFreshStore();

  it('ranks the active memory before the one it superseded when both score the same, whichever came first', async () => {
    // "14" and "16" weigh the same for the query: the two memories tie on every signal.
    for (const [older, newer] of [
      ['We deploy with PostgreSQL 14', 'We deploy with PostgreSQL 16'],
      ['We deploy with PostgreSQL 16', 'We deploy with PostgreSQL 14'],
    ]) {
      const db = ['--db', store.tmp.path(`${older.slice(-2)}.db`), '--branch', 'main'];
      for (const content of [older, newer])
        expect((await runCli([...db, 'remember', content!, '-t', 'project'])).code).toBe(0);
      const run = await runCli([...db, '--json', 'recall', 'PostgreSQL', '--include-superseded']);
      const results = run.json().results as { content: string; memory: { supersededBy?: string } }[];
      expect(results.map((r) => r.content)).toEqual([newer, older]);
      expect(results[0]!.memory.supersededBy).toBeUndefined();
      expect(results[1]!.memory.supersededBy).toBeDefined();
    }
  });
});
