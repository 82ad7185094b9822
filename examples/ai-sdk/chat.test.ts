import { describe, expect, it } from 'vitest';
import { offlineChatModel, offlineExtractor, runChat } from './chat';

describe('examples/ai-sdk chat loop (offline)', () => {
  it('learns memories, recalls them on later turns and supersedes an outdated fact, and activates a skill', async () => {
    const lines: string[] = [];
    const result = await runChat({
      model: offlineChatModel(),
      extractor: offlineExtractor(),
      log: (l) => lines.push(l),
    });
    const [first, second, third, fourth] = result.turns;

    expect(first!.injected).toBe(''); // nothing known yet
    expect(second!.injected).toContain('The user prefers pnpm over npm as package manager');
    expect(second!.reply).toContain('pnpm install');
    expect(third!.injected).toContain('PostgreSQL 14');
    expect(fourth!.injected).toContain('PostgreSQL 16');
    expect(fourth!.injected).not.toContain('PostgreSQL 14');
    expect(fourth!.reply).toContain('PostgreSQL 16');
    expect(fourth!.injected).toContain('## Active skills');
    expect(fourth!.reply).toContain('multi-stage');
    for (const turn of [first, second, third]) expect(turn!.injected).not.toContain('## Active skills');

    expect(result.memories.map((m) => m.content).sort()).toEqual([
      'The API runs on PostgreSQL 16',
      'The user prefers pnpm over npm as package manager',
    ]);
    expect(result.extraction).toEqual({ calls: 4, totalTokens: 700 });
    expect(lines.join('\n')).toContain('learned [project] The API runs on PostgreSQL 16 (supersedes 1)');
  });
});
