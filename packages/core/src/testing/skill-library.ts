import type { SkillInput } from '@agentmem/core';

/**
 * A small skill library for adapter tests of catalog mode: one skill a
 * release-notes request calls for, two it does not. The runtimes' tests load
 * the same library so their results compare.
 */
export const CATALOG_TEST_SKILLS: readonly SkillInput[] = [
  {
    name: 'release-notes',
    description: 'Write release notes from merged pull requests',
    content: '# Release notes\n- Group changes by user impact.\n- Link every pull request.',
  },
  { name: 'terraform', description: 'Terraform modules and state', content: '# Terraform\n- Pin providers.' },
  { name: 'api-style', description: 'REST naming and error formats', content: '# API style\n- Plural nouns.' },
];
