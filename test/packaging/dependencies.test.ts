import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(__dirname, '../..');
const packages = readdirSync(join(root, 'packages'));

/** The non-test TypeScript sources of a package, concatenated. */
function sources(dir: string): string {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') && !/\.test\.ts$|test-fixtures/.test(f))
    .map((f) => readFileSync(join(dir, f), 'utf8'))
    .join('\n');
}

describe('declared dependencies', () => {
  it.each(packages)('@agentmem/%s uses every runtime dependency it declares (users install each one)', (name) => {
    const manifest = JSON.parse(readFileSync(join(root, 'packages', name, 'package.json'), 'utf8'));
    const code = sources(join(root, 'packages', name, 'src'));
    const unused = Object.keys(manifest.dependencies ?? {}).filter((dep) => {
      // A types package counts as used with the package it types (@types/pg with pg).
      const imported = dep.startsWith('@types/') ? dep.slice('@types/'.length) : dep;
      return !code.includes(`'${imported}'`) && !code.includes(`'${imported}/`);
    });
    expect(unused).toEqual([]);
  });
});
