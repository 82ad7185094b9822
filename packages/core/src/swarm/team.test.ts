import { describe, expect, it } from 'vitest';
import { AgentMemory } from '../agent-memory';
import { InMemoryBackend } from '../backends';
import { createTeam } from './team';

function team() {
  const memory = new AgentMemory({ backend: new InMemoryBackend() });
  return createTeam(memory, { teamId: 'release', members: ['planner', 'coder', 'reviewer'] });
}

describe('Team (swarm memory)', () => {
  it('keeps private memories private and shares team memories with every member', async () => {
    const t = team();
    const planner = t.member('planner');
    const coder = t.member('coder');
    await planner.remember({ content: 'My scratch note: check the changelog wording', type: 'project' });
    await planner.remember({ content: 'The release branch is cut on Thursday', type: 'project' }, { to: 'team' });
    const coderSees = (await coder.recall('release changelog thursday', { k: 10 })).map((r) => r.memory.content);
    expect(coderSees).toEqual(['The release branch is cut on Thursday']);
    const plannerOwn = (await planner.recall('release changelog thursday', { from: 'own', k: 10 })).map((r) => r.memory.content);
    expect(plannerOwn).toEqual(['My scratch note: check the changelog wording']);
    const plannerTeam = await planner.recall('release thursday', { from: 'team' });
    expect(plannerTeam[0]?.memory.agentId).toBe('planner');
  });

  it('resolves two agents conflicting on one fact by the team strategy, with both authors in history', async () => {
    const t = team();
    const first = await t.member('planner').remember({ content: 'The release version is 2.3.0', type: 'project' }, { to: 'team' });
    const second = await t.member('reviewer').remember({ content: 'The release version is 2.4.0', type: 'project' }, { to: 'team' });
    expect(second.conflicts.map((c) => c.memory.id)).toEqual([first.memory!.id]);
    const visible = (await t.member('coder').recall('release version')).map((r) => r.memory.content);
    expect(visible).toEqual(['The release version is 2.4.0']);
    const history = await t.member('coder').memory.history(first.memory!.id);
    expect(history.map((h) => [h.action, h.agentId])).toEqual([
      ['create', 'planner'],
      ['supersede', 'reviewer'],
    ]);
  });

  it('a private note never supersedes another agent\'s note or a team fact, and team memory stays out of plain recall', async () => {
    const memory = new AgentMemory({ backend: new InMemoryBackend() });
    const t = createTeam(memory, { teamId: 'release', members: ['planner', 'coder'] });
    const shared = await t.member('planner').remember({ content: 'The release version is 2.3.0', type: 'project' }, { to: 'team' });
    const note = await t.member('planner').remember({ content: 'The release version is 2.3.0 per my notes', type: 'project' });
    const other = await t.member('coder').remember({ content: 'The release version is 2.4.0 per my notes', type: 'project' });
    expect(other.superseded).toEqual([]);
    for (const m of [shared.memory!, note.memory!]) expect((await memory.get(m.id))!.supersededBy).toBeUndefined();
    expect((await t.member('coder').recall('release version', { from: 'own' })).map((r) => r.memory.id)).toEqual([other.memory!.id]);
    expect(await memory.recall('release version')).toEqual([]);
  });

  it('uses the configured strategy for team conflicts: keep_existing refuses, keep_both keeps both authors', async () => {
    for (const resolution of ['keep_existing', 'keep_both'] as const) {
      const t = createTeam(new AgentMemory({ backend: new InMemoryBackend() }), { teamId: 'release', members: ['planner', 'reviewer'], resolution });
      const first = await t.member('planner').remember({ content: 'The release version is 2.3.0', type: 'project' }, { to: 'team' });
      const second = await t.member('reviewer').remember({ content: 'The release version is 2.4.0', type: 'project' }, { to: 'team' });
      expect(second).toMatchObject({ resolution, stored: resolution === 'keep_both', superseded: [] });
      const seen = (await t.member('planner').recall('release version', { from: 'team' })).map((r) => [r.memory.content, r.memory.agentId]);
      expect(seen.sort()).toEqual(
        resolution === 'keep_both'
          ? [['The release version is 2.3.0', 'planner'], ['The release version is 2.4.0', 'reviewer']]
          : [['The release version is 2.3.0', 'planner']],
      );
      expect(first.stored).toBe(true);
    }
  });

  it('refuses agents that are not members', () => {
    expect(() => team().member('intruder')).toThrow(/not a member of team "release"/);
  });
});
