import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useFreshStore } from './run-cli';

const EXAMPLES = join(__dirname, '../../examples/skills');

const store = useFreshStore();
const cli = store.cli;

describe('agentmem skills', () => {
  it('load registers the examples; loading again changes nothing; list shows them', async () => {
    const first = await cli('skills', 'load', EXAMPLES, '--json');
    expect(first.code, first.stderr).toBe(0);
    expect(first.json()).toMatchObject({ problems: [], updated: [], unchanged: [] });
    expect(first.json().added.sort()).toEqual(['ci-cd', 'docker', 'python', 'sql-migrations']);
    const again = await cli('skills', 'load', EXAMPLES, '--json');
    expect(again.json()).toMatchObject({ added: [], updated: [] });
    expect(again.json().unchanged).toHaveLength(4);
    const list = await cli('skills', 'list');
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/docker\s+agentmem/);
    expect(list.stdout).toMatch(/ci-cd\s+cursor-rules/);
  });

  it('activate shows scores and signals, as a table or JSON', async () => {
    await cli('skills', 'load', EXAMPLES);
    const table = await cli('skills', 'activate', 'deploy the containers to staging');
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(
      /docker\s+0\.\d+\s+combined\s+semantic [\d.]+ \(cos [\d.]+(, bm25 [\d.]+)?\) · keyword container/,
    );

    const json = await cli('skills', 'activate', 'tidy this up', '--file', 'src/app/main.py', '--json');
    expect(json.json()).toMatchObject({
      message: 'tidy this up',
      files: ['src/app/main.py'],
      activated: [{ name: 'python', activatedBy: 'glob', signals: { glob: { paths: ['src/app/main.py'] } } }],
    });

    const none = await cli('skills', 'activate', "what's the weather like");
    expect(none.stdout).toContain('No skill activated');

    const prompt = await cli('skills', 'activate', 'review the Dockerfile', '--prompt');
    expect(prompt.stdout).toContain('## Active skills\n\n### docker\n**Allowed tools:** docker_build, docker_push');
  });

  it('lint reports problems with path and line and exits 1; a clean directory exits 0', async () => {
    const clean = await cli('skills', 'lint', EXAMPLES);
    expect(clean.code, clean.stdout).toBe(0);
    expect(clean.stdout).toContain('4 skills OK, no problems.');

    const dir = store.tmp.path('skills');
    mkdirSync(join(dir, '.cursor', 'rules'), { recursive: true });
    writeFileSync(join(dir, 'good.md'), '---\ndescription: fine\n---\nDo things well.');
    writeFileSync(join(dir, 'bad.md'), '---\ndescription: [oops\ntags: x\n---\nBody');
    writeFileSync(join(dir, '.cursor', 'rules', 'quoted.mdc'), '---\ndescription: d\nalwaysApply: "true"\n---\nBody');
    const run = await cli('skills', 'lint', dir);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/bad\.md:\d+: error: invalid YAML/);
    expect(run.stdout).toMatch(/quoted\.mdc:3: warning: alwaysApply is "true"/);
    expect(run.stdout).toContain('2 skills OK; 1 error, 1 warning.');
    const json = await cli('skills', 'lint', dir, '--json');
    expect(json.code).toBe(1);
    expect(json.json()).toMatchObject({ ok: false, problems: [{ severity: 'warning' }, { severity: 'error' }] });
  });

  it('counts one as one: "1 skill OK; 1 error", "1 problem"', async () => {
    const dir = store.tmp.path('one');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'good.md'), '---\ndescription: fine\n---\nDo things well.');
    writeFileSync(join(dir, 'bad.md'), '---\ndescription: [oops\ntags: x\n---\nBody');
    expect((await cli('skills', 'lint', dir)).stdout).toContain('1 skill OK; 1 error, 0 warnings.');
    const load = await cli('skills', 'load', dir);
    expect(load.stdout).toContain(`Loaded 1 skill from ${dir}: 1 added`);
    expect(load.stderr).toContain(`1 problem; see \`agentmem skills lint ${dir}\`.`);
  });

  it('remove asks first (--yes skips) and reports unknown names', async () => {
    await cli('skills', 'load', EXAMPLES);
    const refused = await cli('skills', 'remove', 'docker');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/needs confirmation/);
    const removed = await cli('--yes', 'skills', 'remove', 'docker', '--json');
    expect(removed.json()).toEqual({ removed: true, name: 'docker' });
    expect((await cli('skills', 'list', '--json')).json().skills).toHaveLength(3);
    const missing = await cli('skills', 'remove', 'docker');
    expect(missing.code).toBe(1);
    expect(missing.stdout).toBe('');
    expect(missing.stderr).toMatch(
      /^error \[NOT_FOUND\]: No skill named "docker"; nothing was removed\. .*skills list/,
    );
  });

  it('a missing directory is a clear error', async () => {
    const run = await cli('skills', 'lint', store.tmp.path('nope'));
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/No skills directory or file at/);
  });
});
