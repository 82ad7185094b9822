import { describe, expect, it } from 'vitest';
import { runMaintenance } from './maintenance';

describe('examples/decay-and-conflicts', () => {
  it('supersedes the changed fact, keeps what is used or long-lived, prunes the rest nightly', async () => {
    const lines: string[] = [];
    const result = await runMaintenance((line) => lines.push(line));
    expect(result.conflict.superseded).toHaveLength(1);
    // The recalled rate limit and the user preference (90-day half-life) survive; the other two are pruned.
    expect(result.active.sort()).toEqual([
      'The API rate limit is 500 requests per minute',
      'The user prefers answers in British English',
    ]);
    // 0.4 and 0.5 fall below 0.05 after log2(8) = 3 and log2(10) = 3.3 weekly half-lives: nights 22 and 24.
    const pruningNights = result.nights.flatMap((r, i) => (r.pruned > 0 ? [{ night: i + 1, pruned: r.pruned }] : []));
    expect(pruningNights).toEqual([
      { night: 22, pruned: 1 },
      { night: 24, pruned: 1 },
    ]);
    expect(result.restored).toBe('The on-call handbook lives in the ops wiki');
    expect(result.compacted).toBe(1);
    expect(lines.join('\n')).toContain('create -> prune -> restore');
  });
});
