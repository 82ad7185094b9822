import type { AgentMemory } from '@agentmem/core';
import { type StructuredToolInterface, tool } from '@langchain/core/tools';

export interface LoadSkillToolOptions {
  /** The tool's name; default `load_skill` (the name catalog mode tells the model to call). */
  name?: string;
}

/**
 * Catalog mode's tool for LangChain agents: the model reads a skill's full
 * instructions by the name the catalog lists (`contextFor(..., { skillCatalog: true })`,
 * or `agentMemoryMiddleware({ memory, skillCatalog: true })`). Returns the
 * instructions sanitised like the context block, or says no such skill exists.
 */
export function loadSkillTool(memory: AgentMemory, options: LoadSkillToolOptions = {}): StructuredToolInterface {
  return tool(
    async (input: { name: string }) => {
      const skill = await memory.skills.get(input.name);
      if (!skill) return `No skill named ${JSON.stringify(input.name)}. Use a name from the skill catalog.`;
      return memory.skills.instructions(input.name);
    },
    {
      name: options.name ?? 'load_skill',
      description:
        "Read a skill's full instructions by name (from the skill catalog in the system prompt), when the task calls for it.",
      schema: {
        type: 'object',
        properties: { name: { type: 'string', description: 'The skill name, as the catalog lists it.' } },
        required: ['name'],
      },
    },
  );
}
