// The README's install lines are what a project needs for the tour: every package the tour imports is on one of
// them, and each @agentmem package there comes with the peers it cannot run without.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(__dirname, '../..');
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** The packages of each `npm i` line in the README's shell blocks. */
const installLines = [...readme.matchAll(/^```sh\n([\s\S]*?)^```$/gm)]
  .flatMap((m) => m[1]!.split('\n'))
  .map((line) => line.replace(/#.*$/, '').trim())
  .filter((line) => /^npm i(nstall)? /.test(line))
  .map((line) =>
    line
      .split(/\s+/)
      .slice(2)
      .filter((word) => !word.startsWith('-')),
  );

function manifest(pkg: string): {
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
} {
  return JSON.parse(readFileSync(join(ROOT, 'packages', pkg.replace('@agentmem/', ''), 'package.json'), 'utf8'));
}

/** A package and what it brings: its dependencies, recursively within the workspace. */
function brings(pkg: string): string[] {
  if (!pkg.startsWith('@agentmem/')) return [pkg];
  const deps = Object.keys(manifest(pkg).dependencies ?? {});
  return [pkg, ...deps.flatMap(brings)];
}

describe("README's install lines", () => {
  it('install every package the tour imports', () => {
    expect(installLines.length).toBeGreaterThanOrEqual(3);
    const installed = new Set(installLines.flat().flatMap(brings));
    const tour = [...readme.matchAll(/^```ts\n([\s\S]*?)^```$/gm)][0]![1]!;
    const imported = [...tour.matchAll(/from '([^']+)'/g)].map((m) => {
      const parts = m[1]!.split('/');
      return m[1]!.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
    });
    expect(imported.length).toBeGreaterThan(4);
    expect(imported.filter((pkg) => !installed.has(pkg))).toEqual([]);
  });

  it('give each @agentmem package its required peers on the same line', () => {
    const missing: string[] = [];
    for (const line of installLines) {
      for (const pkg of line.filter((p) => p.startsWith('@agentmem/'))) {
        const { peerDependencies = {}, peerDependenciesMeta = {} } = manifest(pkg);
        for (const peer of Object.keys(peerDependencies)) {
          if (!peerDependenciesMeta[peer]?.optional && !line.includes(peer)) missing.push(`${pkg} needs ${peer}`);
        }
      }
    }
    expect(missing).toEqual([]);
  });
});
