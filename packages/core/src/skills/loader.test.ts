import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AgentMemoryError } from '../errors';
import { loadSkills, parseSkillFile } from './loader';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentmem-skills-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function put(rel: string, text: string): Promise<string> {
  const path = join(dir, rel);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text);
  return path;
}

const parse = (
  text: string,
  format: Parameters<typeof parseSkillFile>[1]['format'] = 'agentmem',
  defaultName = 'file',
) => parseSkillFile(text, { path: `/x/${defaultName}`, format, defaultName });

describe('agentmem format (*.md)', () => {
  it('reads the snake_case fields of the design example', () => {
    const { skill, problems } = parse(
      [
        '---',
        'description: Docker best practices',
        'glob_patterns: ["Dockerfile", "docker-compose*.yml"]',
        'trigger_keywords: ["docker", "container", "compose"]',
        'tools_allowed: ["docker_build", "docker_push"]',
        'importance: 0.8',
        'tags: ["devops"]',
        '---',
        '## Docker Guidelines',
        '- Always use multi-stage builds',
      ].join('\n'),
      'agentmem',
      'docker',
    );
    expect(problems).toEqual([]);
    expect(skill).toEqual({
      name: 'docker',
      description: 'Docker best practices',
      content: '## Docker Guidelines\n- Always use multi-stage builds',
      globPatterns: ['Dockerfile', 'docker-compose*.yml'],
      triggerKeywords: ['docker', 'container', 'compose'],
      toolsAllowed: ['docker_build', 'docker_push'],
      importance: 0.8,
      tags: ['devops'],
    });
  });

  it('takes the name from the frontmatter over the file name, and always_apply', () => {
    const { skill } = parse('---\nname: Style guide\nalways_apply: true\n---\nUse tabs.', 'agentmem', 'style');
    expect(skill?.name).toBe('Style guide');
    expect(skill?.alwaysApply).toBe(true);
  });

  it('keeps unknown fields in metadata, dates as ISO strings', () => {
    const { skill } = parse('---\nowner: platform-team\nreviewed: 2025-03-01\nextra: { a: [1, 2] }\n---\nBody');
    expect(skill?.metadata).toEqual({
      owner: 'platform-team',
      reviewed: '2025-03-01T00:00:00.000Z',
      extra: { a: [1, 2] },
    });
  });

  it('reads a file without frontmatter: name from the file, description from the first heading', () => {
    const { skill, problems } = parse('# Release checklist\n\n- Tag the release\n', 'agentmem', 'release');
    expect(problems).toEqual([]);
    expect(skill).toMatchObject({
      name: 'release',
      description: 'Release checklist',
      content: '# Release checklist\n\n- Tag the release',
    });
  });

  it('tolerates a BOM and CRLF line endings', () => {
    const text =
      '\uFEFF---\r\ndescription: Windows file\r\ntrigger_keywords: [deploy]\r\n---\r\nLine one\r\nLine two\r\n';
    const { skill, problems } = parse(text);
    expect(problems).toEqual([]);
    expect(skill).toMatchObject({
      description: 'Windows file',
      triggerKeywords: ['deploy'],
      content: 'Line one\nLine two',
    });
  });

  it('reports an empty body and skips the file', () => {
    const { skill, problems } = parse('---\ndescription: nothing here\n---\n\n  \n');
    expect(skill).toBeUndefined();
    expect(problems).toEqual([
      expect.objectContaining({ severity: 'error', line: 3, reason: expect.stringMatching(/empty/) }),
    ]);
  });

  it('reports invalid YAML with its line in the file', () => {
    const { skill, problems } = parse('---\ndescription: ok\ntags: [unclosed\nimportance: 0.5\n---\nBody');
    expect(skill).toBeUndefined();
    expect(problems[0]).toMatchObject({ severity: 'error', reason: expect.stringMatching(/invalid YAML/) });
    expect(problems[0]!.line).toBeGreaterThanOrEqual(3);
    expect(problems[0]!.line).toBeLessThanOrEqual(5);
  });

  it('reports frontmatter that is never closed', () => {
    const { skill, problems } = parse('---\ndescription: ok\nBody without closing');
    expect(skill).toBeUndefined();
    expect(problems[0]).toMatchObject({ line: 1, reason: expect.stringMatching(/never closed/) });
  });

  it('refuses executable (javascript) frontmatter', () => {
    const { skill, problems } = parse('---js\n{ description: (() => { throw new Error("ran") })() }\n---\nBody');
    expect(skill).toBeUndefined();
    expect(problems[0]?.reason).toMatch(/only YAML/);
  });

  it('warns about a wrong value and uses the default', () => {
    const { skill, problems } = parse('---\ndescription: d\nimportance: high\n---\nBody');
    expect(skill?.importance).toBeUndefined();
    expect(problems).toEqual([
      expect.objectContaining({ severity: 'warning', line: 3, reason: expect.stringMatching(/importance/) }),
    ]);
  });
});

describe('Agent Skills (<name>/SKILL.md)', () => {
  it('reads name, description, allowed-tools as a string, and our fields from metadata', () => {
    const { skill, problems } = parse(
      [
        '---',
        'name: pdf',
        'description: Fill PDF forms.',
        'allowed-tools: Bash(pdftk:*) Read',
        'license: MIT',
        'metadata:',
        '  trigger_keywords: "pdf, form"',
        '  glob_patterns: "**/*.pdf"',
        '  importance: "0.9"',
        '  always_apply: "false"',
        '  author: someone',
        '---',
        'Use pdftk.',
      ].join('\n'),
      'agent-skills',
      'pdf',
    );
    expect(problems).toEqual([]);
    expect(skill).toMatchObject({
      name: 'pdf',
      description: 'Fill PDF forms.',
      toolsAllowed: ['Bash(pdftk:*)', 'Read'],
      triggerKeywords: ['pdf', 'form'],
      globPatterns: ['**/*.pdf'],
      importance: 0.9,
      alwaysApply: false,
      metadata: { license: 'MIT', metadata: { author: 'someone' } },
    });
  });

  it('reads unquoted globs inside metadata', () => {
    const { skill, problems } = parse(
      '---\nname: a\ndescription: d\nmetadata:\n  glob_patterns: **/*.py, *.pyi\n---\nx',
      'agent-skills',
      'a',
    );
    expect(problems).toEqual([]);
    expect(skill?.globPatterns).toEqual(['**/*.py', '*.pyi']);
  });

  it('reads allowed-tools as a comma string or a list', () => {
    expect(
      parse('---\nname: a\nallowed-tools: Read, Grep, Bash(git add:*)\n---\nx', 'agent-skills', 'a').skill
        ?.toolsAllowed,
    ).toEqual(['Read', 'Grep', 'Bash(git add:*)']);
    expect(
      parse('---\nname: a\nallowed-tools:\n  - Read\n  - Write\n---\nx', 'agent-skills', 'a').skill?.toolsAllowed,
    ).toEqual(['Read', 'Write']);
  });

  it('warns when the name differs from the folder, and uses the folder when there is no name', () => {
    const named = parse('---\nname: other\ndescription: d\n---\nx', 'agent-skills', 'folder');
    expect(named.skill?.name).toBe('other');
    expect(named.problems[0]).toMatchObject({ severity: 'warning', line: 2 });
    expect(parse('---\ndescription: d\n---\nx', 'agent-skills', 'folder').skill?.name).toBe('folder');
    const undescribed = parse('---\nname: folder\n---\n# Does things\nx', 'agent-skills', 'folder');
    expect(undescribed.skill?.description).toBe('Does things');
    expect(undescribed.problems).toEqual([
      expect.objectContaining({ severity: 'warning', reason: expect.stringMatching(/no description/) }),
    ]);
  });
});

describe('Claude Code rules (.claude/rules/*.md)', () => {
  it('reads paths as a list or a string; legacy globs too', () => {
    expect(
      parse('---\npaths:\n  - "src/api/**/*.ts"\n  - lib/**/*.ts\n---\nAPI rules', 'claude-rules', 'api').skill,
    ).toMatchObject({
      name: 'api',
      globPatterns: ['src/api/**/*.ts', 'lib/**/*.ts'],
      description: 'API rules',
    });
    expect(parse('---\npaths: src/**/*.{ts,tsx}\n---\nx', 'claude-rules').skill?.globPatterns).toEqual([
      'src/**/*.{ts,tsx}',
    ]);
    expect(parse('---\nglobs: "**/*.py"\n---\nx', 'claude-rules').skill?.globPatterns).toEqual(['**/*.py']);
  });

  it('applies a rule without paths to every task, as Claude Code does', () => {
    const { skill } = parse('# Always\nBe terse.', 'claude-rules', 'style');
    expect(skill).toMatchObject({ alwaysApply: true, name: 'style' });
  });

  it('accepts unquoted list items that start with * (not YAML aliases)', () => {
    const { skill, problems } = parse('---\npaths:\n  - **/*.sql\n  - *.ddl\n---\nx', 'claude-rules');
    expect(problems).toEqual([]);
    expect(skill?.globPatterns).toEqual(['**/*.sql', '*.ddl']);
  });
});

describe('Cursor rules (.cursor/rules/*.mdc)', () => {
  it('reads unquoted comma globs, which YAML alone cannot', () => {
    const { skill, problems } = parse(
      '---\ndescription: TS rules\nglobs: *.ts, src/**/*.{ts,tsx}\nalwaysApply: false\n---\nUse strict.',
      'cursor-rules',
      'ts',
    );
    expect(problems).toEqual([]);
    expect(skill).toMatchObject({ name: 'ts', description: 'TS rules', globPatterns: ['*.ts', 'src/**/*.{ts,tsx}'] });
    expect(skill?.alwaysApply).toBeUndefined();
  });

  it('reads globs as a YAML list and alwaysApply: true', () => {
    const { skill } = parse('---\nglobs:\n  - "*.md"\nalwaysApply: true\n---\nx', 'cursor-rules');
    expect(skill).toMatchObject({ globPatterns: ['*.md'], alwaysApply: true });
  });

  it('does not treat the string "true" as true, and says so', () => {
    const { skill, problems } = parse('---\ndescription: d\nalwaysApply: "true"\n---\nx', 'cursor-rules');
    expect(skill?.alwaysApply).toBeUndefined();
    expect(problems).toEqual([
      expect.objectContaining({ severity: 'warning', line: 3, reason: expect.stringMatching(/not the boolean true/) }),
    ]);
  });

  it('reads a flow list with unquoted globs', () => {
    expect(parse('---\nglobs: [*.ts, "src/**/*.tsx"]\n---\nx', 'cursor-rules').skill?.globPatterns).toEqual([
      '*.ts',
      'src/**/*.tsx',
    ]);
    expect(parse("---\nglobs: ['*.md']\n---\nx", 'cursor-rules').skill?.globPatterns).toEqual(['*.md']);
  });

  it('accepts an empty globs field', () => {
    const { skill, problems } = parse('---\ndescription: d\nglobs:\nalwaysApply: false\n---\nx', 'cursor-rules');
    expect(problems).toEqual([]);
    expect(skill?.globPatterns).toBeUndefined();
  });
});

describe('loadSkills(dir)', () => {
  it('finds every format, reports bad files and loads the rest', async () => {
    await put('docker.md', '---\ndescription: Docker\ntrigger_keywords: [docker]\n---\nUse multi-stage builds.');
    await put('broken.md', '---\ndescription: [oops\n---\nBody');
    await put('README.md', '# Not a skill');
    await put('pdf/SKILL.md', '---\nname: pdf\ndescription: PDFs\n---\nUse pdftk.');
    await put('.claude/rules/frontend/react.md', '---\npaths: ["src/**/*.tsx"]\n---\nUse hooks.');
    await put('.cursor/rules/ts.mdc', '---\ndescription: TS\nglobs: *.ts\n---\nUse strict.');
    await put('.cursor/rules/empty.mdc', '---\ndescription: nothing\n---\n');
    const { skills, problems } = await loadSkills(dir);
    expect(skills.map((s) => [s.name, s.source?.format, s.source?.path])).toEqual([
      ['frontend/react', 'claude-rules', '.claude/rules/frontend/react.md'],
      ['ts', 'cursor-rules', '.cursor/rules/ts.mdc'],
      ['docker', 'agentmem', 'docker.md'],
      ['pdf', 'agent-skills', 'pdf/SKILL.md'],
    ]);
    expect(problems.map((p) => [p.path.slice(dir.length + 1), p.severity])).toEqual([
      ['.cursor/rules/empty.mdc', 'error'],
      ['broken.md', 'error'],
    ]);
  });

  it("load('.') in a repository takes skills only: plain Markdown is reported as skipped", async () => {
    await put('CHANGELOG.md', '# Changelog\n\n## 1.2.0\n- Release notes');
    await put('CONTRIBUTING.md', '---\ntitle: Contributing\n---\nOpen a pull request.');
    await put('style.md', '---\ndescription: House style\n---\nUse British English.');
    await put('docs/guide.md', '---\ndescription: not at the top\n---\nIgnored.');
    const { skills, problems } = await loadSkills(dir);
    expect(skills.map((s) => s.name)).toEqual(['style']);
    expect(problems.map((p) => [p.path.slice(dir.length + 1), p.severity])).toEqual([
      ['CHANGELOG.md', 'skipped'],
      ['CONTRIBUTING.md', 'skipped'],
    ]);
    expect(problems[0]!.reason).toMatch(/plain Markdown without skill frontmatter/);
    // A file named explicitly is read as a skill, frontmatter or not.
    expect((await loadSkills(join(dir, 'CHANGELOG.md'))).skills.map((s) => s.name)).toEqual(['CHANGELOG']);
  });

  it('reports a file the registry would refuse (too long, name too long) and loads the rest', async () => {
    await put('docker.md', '---\ndescription: Docker\n---\nUse multi-stage builds.');
    await put('huge.md', `---\ndescription: huge\n---\n${'word '.repeat(30_000)}`);
    await put('long-name.md', `---\ndescription: x\nname: ${'n'.repeat(200)}\n---\nBody`);
    const { skills, problems } = await loadSkills(dir);
    expect(skills.map((s) => s.name)).toEqual(['docker']);
    expect(problems.map((p) => [p.path.slice(dir.length + 1), p.severity, p.line])).toEqual([
      ['huge.md', 'error', undefined],
      ['long-name.md', 'error', 3],
    ]);
    expect(problems[0]!.reason).toMatch(/limit is 100000/);
  });

  it('follows symbolic links to shared rule files and skill folders, without looping', async () => {
    const shared = await mkdtemp(join(tmpdir(), 'agentmem-shared-'));
    try {
      await writeFile(join(shared, 'ts.mdc'), '---\ndescription: TS\nglobs: *.ts\n---\nUse strict.');
      await writeFile(join(shared, 'docker.md'), '---\ndescription: Docker\n---\nUse multi-stage builds.');
      await mkdir(join(shared, 'pdf'));
      await writeFile(join(shared, 'pdf', 'SKILL.md'), '---\nname: pdf\ndescription: PDFs\n---\nUse pdftk.');
      await mkdir(join(dir, '.cursor', 'rules'), { recursive: true });
      await symlink(join(shared, 'ts.mdc'), join(dir, '.cursor', 'rules', 'ts.mdc'));
      await symlink(join(dir, '.cursor'), join(dir, '.cursor', 'rules', 'loop')); // a cycle
      await symlink(join(shared, 'docker.md'), join(dir, 'docker.md'));
      await symlink(join(shared, 'pdf'), join(dir, 'pdf'));
      await symlink(join(shared, 'gone.md'), join(dir, 'gone.md')); // broken: reported, not skipped silently
      const { skills, problems } = await loadSkills(dir);
      expect(skills.map((s) => [s.name, s.source?.format])).toEqual([
        ['ts', 'cursor-rules'],
        ['docker', 'agentmem'],
        ['pdf', 'agent-skills'],
      ]);
      expect(problems.map((p) => [p.path.slice(dir.length + 1), p.severity])).toEqual([['gone.md', 'error']]);
    } finally {
      await rm(shared, { recursive: true, force: true });
    }
  });

  it('loads .claude/rules or .cursor/rules given directly, and a single file', async () => {
    await put('.cursor/rules/a.mdc', '---\ndescription: A\n---\nx');
    await put('.claude/rules/b.md', '---\npaths: "*.b"\n---\ny');
    expect((await loadSkills(join(dir, '.cursor/rules'))).skills.map((s) => s.name)).toEqual(['a']);
    expect((await loadSkills(join(dir, '.claude/rules'))).skills.map((s) => s.name)).toEqual(['b']);
    expect((await loadSkills(join(dir, '.cursor/rules/a.mdc'))).skills[0]).toMatchObject({
      name: 'a',
      source: { format: 'cursor-rules' },
    });
  });

  it('finds Agent Skills under .claude/skills and a directory that is one skill folder', async () => {
    await put('.claude/skills/deploy/SKILL.md', '---\nname: deploy\ndescription: Deploys\n---\nShip it.');
    expect((await loadSkills(dir)).skills.map((s) => [s.name, s.source?.path])).toEqual([
      ['deploy', '.claude/skills/deploy/SKILL.md'],
    ]);
    expect((await loadSkills(join(dir, '.claude/skills/deploy'))).skills.map((s) => s.name)).toEqual(['deploy']);
  });

  it('reports two files with the same skill name and keeps the first', async () => {
    await put('a.md', '---\nname: same\n---\nfirst');
    await put('b.md', '---\nname: same\n---\nsecond');
    const { skills, problems } = await loadSkills(dir);
    expect(skills.map((s) => s.content)).toEqual(['first']);
    expect(problems[0]).toMatchObject({ path: join(dir, 'b.md'), reason: expect.stringMatching(/already used/) });
  });

  it('throws NOT_FOUND for a missing directory', async () => {
    const error = await loadSkills(join(dir, 'nope')).catch((e: unknown) => e);
    expect(AgentMemoryError.hasCode(error, 'NOT_FOUND')).toBe(true);
  });

  it('loads the shipped examples without problems', async () => {
    const { skills, problems } = await loadSkills(join(__dirname, '../../../../examples/skills'));
    expect(problems).toEqual([]);
    expect(skills.map((s) => s.name).sort()).toEqual(['ci-cd', 'docker', 'python', 'sql-migrations']);
  });
});
