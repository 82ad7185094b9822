import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatForPrompt } from '@agentmem/core';
import {
  ACTIVATED_COLUMNS,
  activatedJson,
  activatedRows,
  problemLine,
  SKILL_COLUMNS,
  skillRows,
} from '../commands/skills';
import type { DemoContext } from './demo-context';

export const DEMO_SKILL_MESSAGES = [
  'deploy the containers to staging',
  'review the Dockerfile',
  'optimize the CI/CD pipeline for faster builds',
  "what's the weather like",
];

/** This module's folder: `dist/` once built (ESM or CJS), `src/demo/` when run from source. */
const moduleDir = typeof __dirname === 'string' ? __dirname : dirname(fileURLToPath(import.meta.url));

/**
 * The demo skills: shipped in the package (`dist/demo-skills`, a copy of
 * `examples/skills` made by the build), else `examples/skills` of the
 * agentmem checkout the demo runs in or runs from: searched upward from the
 * working directory, then from this module's folder (the demo run from
 * source with a working directory outside the checkout).
 */
function findExampleSkills(from = process.cwd()): string | undefined {
  const packaged = join(moduleDir, 'demo-skills');
  if (existsSync(packaged)) return packaged;
  return findUpward(resolve(from)) ?? findUpward(moduleDir);
}

/** `examples/skills` in `start` or the nearest parent that has one. */
function findUpward(start: string): string | undefined {
  let dir = start;
  for (;;) {
    const candidate = join(dir, 'examples', 'skills');
    if (existsSync(candidate)) return candidate;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** Load the example skills (four formats), then show which ones each message activates and why. */
export async function skillsSection(d: DemoContext): Promise<void> {
  const dir = findExampleSkills();
  d.heading('Skills: load examples/skills (agentmem, Agent Skills, Claude Code and Cursor formats)');
  if (!dir) {
    d.print('Demo skills not found: reinstall @agentmem/cli, or run the demo from an agentmem checkout.');
    d.summary.skills = { skipped: 'examples/skills not found' };
    return;
  }
  const loaded = await d.memory.skills.load(dir);
  d.print(`Loaded ${loaded.skills.length} skills from ${dir} (${loaded.added.length} new).\n`);
  d.table(skillRows(loaded.skills), SKILL_COLUMNS);
  for (const p of loaded.problems) d.print(problemLine(p));

  d.heading('Skills: activation = 0.55 semantic + 0.25 keyword + 0.15 glob + 0.05 importance');
  d.print(
    'Semantic scores are absolute (cosine and BM25 over the library), so an unrelated message activates nothing.',
  );
  const activations = [];
  for (const message of DEMO_SKILL_MESSAGES) {
    const activated = await d.memory.skills.activate(message);
    d.print(`\n> skills activate "${message}"`);
    if (activated.length > 0) d.table(activatedRows(activated), ACTIVATED_COLUMNS);
    else d.print('(no skill activated)');
    activations.push({ message, activated: activatedJson(activated) });
  }

  const [first] = DEMO_SKILL_MESSAGES;
  const prompt = formatForPrompt(await d.memory.skills.activate(first!), { maxChars: 1200 });
  d.heading('Skills: what goes into the system prompt');
  d.print(`> formatForPrompt(activate("${first}"))\n`);
  d.print(prompt);

  d.summary.skills = {
    loaded: loaded.skills.map((s) => ({ name: s.name, format: s.source?.format })),
    problems: loaded.problems,
    activations,
    prompt,
  };
}
