import { describe, expect, it } from 'vitest';
import { runSwarm } from './swarm';

describe('examples/swarm (offline)', () => {
  it('hands facts between agents through the team scope and resolves a conflict with both authors in history', async () => {
    const lines: string[] = [];
    const { runs, conflictHistory, privateNoteVisibleTo } = await runSwarm({ log: (l) => lines.push(l) });
    const [planner, coder, reviewer, tagger] = runs;

    expect(planner!.context).toEqual([]); // nothing known yet
    expect(planner!.wrote.map((w) => w.to)).toEqual(['team', 'team', 'own']);
    // The coder works from what the planner shared (and not from its private note).
    expect(coder!.context).toContain('- (team, from planner) The release version is 2.3.0');
    expect(coder!.context.join('\n')).not.toContain('Ask the reviewer');
    expect(coder!.answer).toBe('Bumped package.json to 2.3.0 and wrote the notes in CHANGELOG.md.');
    // The reviewer sees both and contradicts the planner's version.
    expect(reviewer!.context).toContain(
      '- (team, from coder) The orders API now returns 410 Gone for /v1/orders, a breaking change',
    );
    expect(reviewer!.wrote).toEqual([
      { to: 'team', content: 'The release version is 3.0.0', superseded: [expect.any(String)] },
    ]);
    // Afterwards the team sees only the resolved fact.
    expect(tagger!.context.filter((c) => c.includes('release version'))).toEqual([
      '- (team, from reviewer) The release version is 3.0.0',
    ]);
    expect(tagger!.answer).toBe('Tagged v3.0.0.');

    expect(conflictHistory).toEqual([
      { action: 'create', agentId: 'planner' },
      { action: 'supersede', agentId: 'reviewer' },
    ]);
    expect(privateNoteVisibleTo).toEqual(['planner']);
    expect(lines.join('\n')).toContain(
      'history of "The release version is 2.3.0": create by planner, supersede by reviewer',
    );
  });
});
