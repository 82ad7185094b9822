/**
 * `npm run bench -- skills-quality` refuses labels that name a skill its library does not hold (a
 * message that could never be hit, counted a miss without saying why), for `--data docs` and any
 * `--data` folder; bench/skills-docs' labels all name a skill of the library built from docs/.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSkills } from '@agentmem/core';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { checkLabels, docsLibrary, type Query, run } from '../../bench/skills-quality';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'agentmem-skills-quality-'));
  vi.spyOn(console, 'log').mockImplementation(() => {});
});
afterEach(() => {
  vi.restoreAllMocks();
  rmSync(dir, { recursive: true, force: true });
});

const query = (id: string, expected: string[]): Query => ({
  id,
  group: 'agent-skill',
  kind: 'paraphrase',
  message: 'How do I deploy the service to staging?',
  files: [],
  expected,
});

function skill(root: string, name: string, description: string): void {
  mkdirSync(join(root, 'skills', name), { recursive: true });
  writeFileSync(
    join(root, 'skills', name, 'SKILL.md'),
    `---\nname: ${name}\ndescription: ${description}\n---\n\n# ${name}\n\n${description}\n`,
  );
}

async function library(root: string) {
  const rules = (await loadSkills(join(root, 'rules'))).skills;
  const skills = (await loadSkills(join(root, 'skills'))).skills;
  return [...rules, ...skills];
}

describe('skills-quality refuses labels naming a skill missing from the library', () => {
  it('a --data folder: the run stops before measuring, naming the message, the skill and the fix', async () => {
    mkdirSync(join(dir, 'rules'));
    skill(dir, 'deploy-staging', 'Use when deploying the service to staging');
    const queries = [
      query('skill:deploy-staging:paraphrase', ['deploy-staging']),
      query('skill:gone:paraphrase', ['gone']),
    ];
    writeFileSync(join(dir, 'queries.json'), JSON.stringify(queries));
    const outcome = await run(['--data', dir, '--backend', 'memory']).then(
      () => 'measured',
      (e: Error) => e.message,
    );
    expect(outcome).toMatch(/^1 labelled message of --data names a skill missing from the library of 1 /);
    expect(outcome).toContain('skill:gone:paraphrase expects gone');
    expect(outcome).toContain('Point --data at a folder');
    expect(console.log).not.toHaveBeenCalledWith(expect.stringContaining('top-1'));
  });

  it("--data docs: every label names a page or Playwright skill the library holds; a missing one is refused with the README's rule", async () => {
    const built = docsLibrary();
    try {
      const queries = JSON.parse(readFileSync(join(built, 'queries.json'), 'utf8')) as Query[];
      const skills = await library(built);
      expect(() => checkLabels(queries, skills, true)).not.toThrow();
      const expected = new Set(queries.flatMap((q) => q.expected));
      expect(expected.size).toBeGreaterThan(20);
      // A page renamed away: its messages' labels name nothing in the library.
      const without = skills.filter((s) => s.name !== 'ai-sdk');
      expect(() => checkLabels(queries, without, true)).toThrow(
        /labelled messages of bench\/skills-docs\/queries\.json name a skill missing .*skill:ai-sdk:paraphrase expects ai-sdk.*A page of docs\/ was renamed or removed.*never relabel old ones/,
      );
    } finally {
      rmSync(built, { recursive: true, force: true });
    }
  });
});
