import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { seededRandom } from '../testing/seeded-random';
import { MAX_FRONTMATTER_CHARS } from './frontmatter';
import { loadSkills } from './loader';
import { MAX_SKILL_FILE_BYTES } from './read-skill-file';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentmem-hostile-skills-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A 9-level YAML alias bomb (about 500 bytes; 9^9 values if expanded). */
function aliasBomb(): string {
  const lines = ['---', 'a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]'];
  for (let i = 1; i < 9; i++)
    lines.push(
      `a${i}: &a${i} [${Array(9)
        .fill(`*a${i - 1}`)
        .join(', ')}]`,
    );
  return [...lines, 'description: boom', '---', 'body'].join('\n');
}

describe('hostile skill files are refused with path and reason, the rest load', () => {
  it('a YAML alias bomb is one error (alias limit named), not an out-of-memory crash', async () => {
    await writeFile(join(dir, 'bomb.md'), aliasBomb());
    await writeFile(join(dir, 'ok.md'), '---\ndescription: fine\n---\nUse it.');
    const { skills, problems } = await loadSkills(dir);
    expect(skills.map((s) => s.name)).toEqual(['ok']);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ path: join(dir, 'bomb.md'), severity: 'error', line: 2 });
    expect(problems[0]!.reason).toMatch(/aliases beyond the limit of 100/);
  });

  it('frontmatter over the size limit is refused before YAML parses it', async () => {
    await writeFile(join(dir, 'big.md'), `---\ndescription: ${'x'.repeat(MAX_FRONTMATTER_CHARS)}\n---\nbody`);
    const { skills, problems } = await loadSkills(dir);
    expect(skills).toEqual([]);
    expect(problems[0]!.reason).toMatch(new RegExp(`the limit is ${MAX_FRONTMATTER_CHARS}`));
  });

  it('random bytes and a NUL byte are reported as binary, not loaded as skills', async () => {
    const random = seededRandom(7);
    await writeFile(
      join(dir, 'noise.md'),
      Buffer.from(Array.from({ length: 64 * 1024 }, () => Math.floor(random() * 256))),
    );
    await writeFile(join(dir, 'nul.md'), 'text\u0000more');
    const { skills, problems } = await loadSkills(dir);
    expect(skills).toEqual([]);
    expect(problems.map((p) => [p.path.slice(dir.length + 1), p.reason.match(/not a text file/)?.[0]])).toEqual([
      ['noise.md', 'not a text file'],
      ['nul.md', 'not a text file'],
    ]);
  });

  it('binary content over the size limit is reported as binary, long text as too long', async () => {
    // A database or an archive given as a skill: "split it into smaller skills" would be the wrong advice.
    const binary = Buffer.alloc(MAX_SKILL_FILE_BYTES + 1);
    binary.write('SQLite format 3\u0000', 'latin1');
    await writeFile(join(dir, 'store.md'), binary);
    await writeFile(join(dir, 'long.md'), `---\ndescription: long\n---\n${'word '.repeat(MAX_SKILL_FILE_BYTES / 5)}`);
    const { problems } = await loadSkills(join(dir, 'store.md'));
    expect(problems).toHaveLength(1);
    expect(problems[0]!.reason).toMatch(/^is not a text file \(NUL byte at offset 15\)/);
    expect(problems[0]!.reason).not.toMatch(/Split it/);
    const long = await loadSkills(join(dir, 'long.md'));
    expect(long.problems[0]!.reason).toMatch(/the limit for a skill file is .*Split it into smaller skills/);
  });

  it('a linked directory pointing up its own tree does not turn a SKILL.md into an always-on rule', async () => {
    await mkdir(join(dir, '.claude', 'skills', 'pdf'), { recursive: true });
    await writeFile(
      join(dir, '.claude', 'skills', 'pdf', 'SKILL.md'),
      '---\nname: pdf\ndescription: PDFs\n---\nUse pdftk.',
    );
    await mkdir(join(dir, '.claude', 'rules'), { recursive: true });
    await symlink('..', join(dir, '.claude', 'rules', 'up'));
    const { skills, problems } = await loadSkills(dir);
    expect(skills.map((s) => [s.name, s.source?.format])).toEqual([['pdf', 'agent-skills']]);
    expect(problems.every((p) => /a link up to/.test(p.reason))).toBe(true);
    expect(problems.length).toBeGreaterThan(0);
  });
});
