import { existsSync, realpathSync, statSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { AgentMemoryError } from '@agentmem/core';

/** Linux's PATH_MAX: a longer path is refused before the file system sees it. */
const MAX_PATH_LENGTH = 4096;

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

function refused(message: string, details: Record<string, unknown>): AgentMemoryError {
  return new AgentMemoryError('INVALID_INPUT', message, { details });
}

/** What stands at `path` (following links): undefined when nothing does or it cannot be looked at. */
function kindAt(path: string): 'file' | 'directory' | 'special' | undefined {
  try {
    const stats = statSync(path);
    return stats.isFile() ? 'file' : stats.isDirectory() ? 'directory' : 'special';
  } catch {
    return undefined;
  }
}

/**
 * `path` resolved against `cwd`, refused unless it lies under one of `roots`
 * both as written (`..` cannot climb out) and after symbolic links (a link
 * inside cannot lead out). With `write`, the parent directory must exist:
 * nothing is created outside what the client already has. A path the file
 * system cannot take (NUL, too long) or that names a FIFO, device or socket
 * is refused too: every refusal is `INVALID_INPUT`, never an internal error.
 */
export function confinePath(path: string, cwd: string, roots: readonly string[], write: boolean): string {
  if (typeof path !== 'string' || path.trim() === '') throw refused('The path is empty; give a file path.', { path });
  if (path.includes('\u0000')) {
    throw refused(`The path ${JSON.stringify(path)} contains a NUL character, which no file name can hold.`, { path });
  }
  if (path.length > MAX_PATH_LENGTH) {
    throw refused(`The path is ${path.length} characters long; the limit is ${MAX_PATH_LENGTH}.`, {
      length: path.length,
    });
  }
  const full = resolve(cwd, path);
  const shown = roots.join(', ');
  if (!roots.some((root) => isInside(full, root))) {
    throw refused(
      `${path} is outside the directories this server may use (${shown}). Give a path under one of them, or start the server with --cwd on the right directory.`,
      { path: full, roots },
    );
  }
  let existing = full;
  while (!existsSync(existing) && dirname(existing) !== existing) existing = dirname(existing);
  const real = realOrSelf(existing);
  if (!roots.some((root) => isInside(real, realOrSelf(root)))) {
    throw refused(
      `${path} leads out of the allowed directories (${shown}) through a symbolic link to ${real}. Give a path that stays inside.`,
      { path: full, real, roots },
    );
  }
  if (kindAt(full) === 'special') {
    throw refused(`${path} is a FIFO, device or socket, not a regular file. Give the path of a snapshot file.`, {
      path: full,
    });
  }
  if (write && kindAt(dirname(full)) !== 'directory') {
    throw new AgentMemoryError(
      'NOT_FOUND',
      `The directory ${dirname(full)} does not exist; this server creates no directories. Create it first, or choose another path.`,
      { details: { path: full } },
    );
  }
  return full;
}
