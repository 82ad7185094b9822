import type { Skill } from '@agentmem/core';

/**
 * A skill as the Markdown file it could have come from (agentmem format:
 * YAML frontmatter, values written as JSON, which YAML reads as they are),
 * so the resource both reads well and loads back with `skills load`.
 */
export function skillToMarkdown(skill: Skill): string {
  const fields: [string, unknown][] = [
    ['name', skill.name],
    ['description', skill.description],
    ['glob_patterns', skill.globPatterns],
    ['trigger_keywords', skill.triggerKeywords],
    ['tools_allowed', skill.toolsAllowed],
    ['importance', skill.importance],
    ['tags', skill.tags],
    ['alwaysApply', skill.alwaysApply],
  ];
  const frontmatter = fields
    .filter(([, value]) => !(Array.isArray(value) && value.length === 0) && value !== '' && value !== false)
    .map(([key, value]) => `${key}: ${JSON.stringify(value)}`)
    .join('\n');
  return `---\n${frontmatter}\n---\n${skill.content.endsWith('\n') ? skill.content : `${skill.content}\n`}`;
}
