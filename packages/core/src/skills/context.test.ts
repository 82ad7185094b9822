import { describe, expect, it } from 'vitest';
import { createAgentMemory } from '../agent-memory';
import { InMemoryBackend } from '../backends';

describe('AgentMemory.contextFor with skills', () => {
  it('returns memories and activated skills, skills first in the block', async () => {
    const memory = await createAgentMemory({ backend: new InMemoryBackend() });
    await memory.remember({ content: 'Staging runs on the eu-west cluster', type: 'project' });
    await memory.skills.registerMany([
      {
        name: 'docker',
        description: 'Docker best practices',
        content: '- Use multi-stage builds',
        triggerKeywords: ['container'],
        toolsAllowed: ['docker_build'],
      },
      { name: 'python', description: 'Python conventions', content: '- Use pytest', triggerKeywords: ['pip'] },
    ]);
    const context = await memory.contextFor('deploy the containers to staging');
    expect(context.skills.map((s) => s.skill.name)).toEqual(['docker']);
    expect(context.memories.map((m) => m.memory.content)).toEqual(['Staging runs on the eu-west cluster']);
    const { block } = context;
    expect(block.indexOf('## Active skills')).toBeGreaterThan(0);
    expect(block.indexOf('### docker\n**Allowed tools:** docker_build')).toBeGreaterThan(
      block.indexOf('## Active skills'),
    );
    expect(block.indexOf('## Relevant memories')).toBeGreaterThan(block.indexOf('### docker'));
    expect(block).not.toContain('python');
  });

  it('activates by filePath, honours skillK, and discloses inactive skills when asked', async () => {
    const memory = await createAgentMemory({ backend: new InMemoryBackend() });
    await memory.skills.registerMany([
      { name: 'python', description: 'Python conventions', content: '- Use pytest', globPatterns: ['**/*.py'] },
      { name: 'docker', description: 'Docker best practices', content: '- Use multi-stage builds' },
    ]);
    const byFile = await memory.contextFor('tidy this up', { filePath: 'src/app/main.py', discloseSkills: true });
    expect(byFile.skills.map((s) => s.skill.name)).toEqual(['python']);
    expect(byFile.block).toContain('## Other available skills');
    expect(byFile.block).toContain('- docker: Docker best practices');
    expect((await memory.contextFor('tidy this up', { filePath: 'src/app/main.py', skillK: 0 })).skills).toEqual([]);
  });

  it('app skills reach every tenant; per-tenant skills follow the scoped view', async () => {
    const shared = await createAgentMemory({ backend: new InMemoryBackend(), tenant: 'alice' });
    await shared.skills.register({ name: 'docker', content: '- builds', triggerKeywords: ['docker'] });
    expect((await shared.withScope({ tenant: 'bob' }).contextFor('docker please')).skills).toHaveLength(1);

    const perTenant = await createAgentMemory({ backend: new InMemoryBackend(), tenant: 'alice', skillActivation: { shared: false } });
    await perTenant.skills.register({ name: 'docker', content: '- builds', triggerKeywords: ['docker'] });
    expect((await perTenant.withScope({ tenant: 'bob' }).contextFor('docker please')).skills).toEqual([]);
    expect((await perTenant.contextFor('docker please')).skills).toHaveLength(1);
  });
});
