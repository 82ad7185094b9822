import { fileURLToPath } from 'node:url';
import { main } from '@agentmem/cli';
import { describe, expect, it } from 'vitest';

const CASES = fileURLToPath(new URL('./cases.jsonl', import.meta.url));

describe('examples/eval', () => {
  it('passes its own thresholds: every memory recalled in the top 5, every skill message right, nothing activated for small talk', async () => {
    let stdout = '';
    const code = await main(['eval', CASES, '--json', '--min-recall', '100', '--min-hit', '100', '--max-false', '0'], {
      stdout: (text) => {
        stdout += text;
      },
      stderr: () => {},
      isTTY: false,
    });
    const report = JSON.parse(stdout);
    expect(report.gates.filter((g: { passed: boolean }) => !g.passed)).toEqual([]);
    expect(code).toBe(0);
    const [defaults] = report.configurations;
    expect(defaults.recall).toMatchObject({ questions: 4, 'R@5': 100, 'R@10': 100 });
    expect(defaults.skills).toMatchObject({ messages: 4, 'top-1': 100, 'hit@3': 100, unrelated: 1, false: 0 });
  });
});
