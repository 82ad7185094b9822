import { existsSync, realpathSync, statSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { AgentMemoryError } from '@agentmem/core';

function isInside(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}

function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/**
 * `path` resolved against `cwd`, refused unless it lies under one of `roots`
 * both as written (`..` cannot climb out) and after symbolic links (a link
 * inside cannot lead out). With `write`, the parent directory must exist:
 * nothing is created outside what the client already has.
 */
export function confinePath(path: string, cwd: string, roots: readonly string[], write: boolean): string {
  const full = resolve(cwd, path);
  const shown = roots.join(', ');
  if (!roots.some((root) => isInside(full, root))) {
    throw new AgentMemoryError(
      'INVALID_INPUT',
      `${path} is outside the directories this server may use (${shown}). Give a path under one of them, or start the server with --cwd on the right directory.`,
      { details: { path: full, roots } },
    );
  }
  let existing = full;
  while (!existsSync(existing) && dirname(existing) !== existing) existing = dirname(existing);
  const real = realOrSelf(existing);
  if (!roots.some((root) => isInside(real, realOrSelf(root)))) {
    throw new AgentMemoryError(
      'INVALID_INPUT',
      `${path} leads out of the allowed directories (${shown}) through a symbolic link to ${real}. Give a path that stays inside.`,
      { details: { path: full, real, roots } },
    );
  }
  if (write && !(existsSync(dirname(full)) && statSync(dirname(full)).isDirectory())) {
    throw new AgentMemoryError(
      'NOT_FOUND',
      `The directory ${dirname(full)} does not exist; this server creates no directories. Create it first, or choose another path.`,
      { details: { path: full } },
    );
  }
  return full;
}
