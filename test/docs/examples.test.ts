// Every example the README points a newcomer to is run by a test: a script by the `*.test.ts` beside it, a data
// folder (skills, eval cases) by a test that reads it. A new example without one fails here.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(__dirname, '../..');
const EXAMPLES = join(ROOT, 'examples');

function testFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.test.ts') && !f.includes('node_modules'))
    .map((f) => join(dir, f));
}

describe('examples', () => {
  const examples = readdirSync(EXAMPLES, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name);

  it('the README links every example folder', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(examples.filter((name) => !readme.includes(`](examples/${name}`))).toEqual([]);
  });

  it('every example is smoke tested: a test beside it, or a test that reads its folder', () => {
    const elsewhere = [...testFiles(join(ROOT, 'test')), ...testFiles(join(ROOT, 'packages'))].map((f) =>
      readFileSync(f, 'utf8'),
    );
    const untested = examples.filter((name) => {
      if (testFiles(join(EXAMPLES, name)).length > 0) return false;
      return !elsewhere.some((text) => text.includes(`examples/${name}`) || text.includes(`'examples', '${name}'`));
    });
    expect(untested).toEqual([]);
  });

  it("docs/eval.md's worked example is lines of examples/eval/cases.jsonl, which its test runs", () => {
    const page = readFileSync(join(ROOT, 'docs/eval.md'), 'utf8');
    const block = /^```jsonl\n([\s\S]*?)^```$/m.exec(page)![1]!;
    const cases = new Set(readFileSync(join(EXAMPLES, 'eval/cases.jsonl'), 'utf8').split('\n'));
    const lines = block.split('\n').filter((l) => l.trim() !== '');
    expect(lines.length).toBeGreaterThan(8);
    expect(lines.filter((l) => !cases.has(l))).toEqual([]);
  });

  it('every script beside a test is imported by that test, so the test runs the file users run', () => {
    const notImported: string[] = [];
    for (const name of examples) {
      const dir = join(EXAMPLES, name);
      const tests = testFiles(dir).map((f) => readFileSync(f, 'utf8'));
      if (tests.length === 0) continue;
      for (const script of readdirSync(dir).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))) {
        const module = script.replace(/\.ts$/, '');
        if (!tests.some((t) => t.includes(`'./${module}'`) || t.includes(`./${script}`)))
          notImported.push(`${name}/${script}`);
      }
    }
    expect(notImported).toEqual([]);
  });
});
