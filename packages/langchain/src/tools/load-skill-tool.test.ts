import { AgentMemory, InMemoryBackend } from '@agentmem/core';
import { CATALOG_TEST_SKILLS } from '@agentmem/core/testing';
import { AIMessage, type BaseMessage, SystemMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { createAgent } from 'langchain';
import { describe, expect, it } from 'vitest';
import { agentMemoryMiddleware } from '../middleware/agent-memory-middleware';
import { textOf } from '../middleware/messages';
import { loadSkillTool } from './load-skill-tool';

describe('loadSkillTool in createAgent (catalog mode)', () => {
  it('the model reads the catalog, calls load_skill and gets the skill in full', async () => {
    const memory = new AgentMemory({ backend: new InMemoryBackend() });
    await memory.skills.registerMany(CATALOG_TEST_SKILLS);
    let system = '';
    const model = fakeModel()
      .respond((messages: BaseMessage[]) => {
        const found = messages.find((m) => SystemMessage.isInstance(m));
        system = found ? textOf(found) : '';
        return new AIMessage({
          content: '',
          tool_calls: [{ id: 'c1', name: 'load_skill', args: { name: 'release-notes' }, type: 'tool_call' }],
        });
      })
      .respond(new AIMessage('Grouped by impact, with links.'));
    const agent = createAgent({
      model,
      tools: [loadSkillTool(memory)],
      middleware: [agentMemoryMiddleware({ memory, skillCatalog: true, skillK: 0 })],
    });
    const result = await agent.invoke({
      messages: [{ role: 'user', content: 'Draft the release notes from the merged pull requests' }],
    });
    expect(system).toContain('## Other available skills');
    expect(system).toContain('- release-notes: Write release notes from merged pull requests');
    expect(system).not.toContain('Link every pull request.');
    const toolMessage = result.messages.find((m) => m.getType() === 'tool');
    expect(textOf(toolMessage!)).toContain('Link every pull request.');
    expect(textOf(result.messages.at(-1)!)).toBe('Grouped by impact, with links.');
  });

  it('says so when the skill does not exist', async () => {
    const memory = new AgentMemory({ backend: new InMemoryBackend() });
    const output = await loadSkillTool(memory).invoke({ name: 'missing' });
    expect(output).toContain('No skill named "missing"');
  });
});
