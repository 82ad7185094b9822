// The workspace packages as the root package.json lists them (new packages join the checks by being listed there).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const root = new URL('..', import.meta.url).pathname;

/** { dir, name, manifest } for every non-private workspace package. */
export function workspaces() {
  const { workspaces: dirs } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  return dirs
    .map((dir) => {
      const manifest = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8'));
      return { dir: join(root, dir), name: manifest.name, manifest };
    })
    .filter((pkg) => !pkg.manifest.private);
}
