import { describe, expect, inject, it } from 'vitest';
import { waitForServer } from '../../test/postgres/helpers';
import { runExample } from './postgres';

describe('examples/postgres (on PGlite over the wire protocol)', () => {
  it('keeps tenants apart, supersedes the older fact, and merges a SQLite hand-off back', async () => {
    const url = inject('pgliteUrl');
    await waitForServer(url);
    const lines: string[] = [];
    const result = await runExample({
      connectionString: url,
      schema: `example_${process.pid}`,
      log: (l) => lines.push(l),
    });
    expect(result.recalled[0]).toBe('Alice deploys the billing service with Helm on Fridays');
    expect(result.superseded).toBe(1);
    expect(result.imported).toBe(1);
    expect(result.alice).toContain('The billing deploy needs the DB migration job first');
    expect(result.alice).toContain('Alice deploys the billing service with Helm on Mondays');
    expect(result.alice).not.toContain('Alice deploys the billing service with Helm on Fridays');
    expect(result.bob).toEqual(['Bob deploys with Terraform']);
    expect(lines.join('\n')).toContain('Imported: 1 new memory');
  }, 180_000);
});
