import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { AgentMemoryError } from '@agentmem/core';
import type Database from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';

/**
 * sqlite-vec is loaded into a connection only before its first statement that calls it (the exact dense
 * search's `vec_distance_cosine`; an upgrade that reads a pre-13 `vec0` table): since schema 13 no table
 * needs it, and the approximate search (the default) calls it only where it searches exactly (a scope
 * under ~1,200 vectors, lexical vectors, a filter too selective for its pools). Loading it on every
 * open cost 5.4M instructions, ~2 ms of CPU, of a cold open (12M left), nearly all of it
 * `getLoadablePath`'s module resolution (the dlopen ~0.4 ms).
 */
const loaded = new WeakSet<Database.Database>();

function missingExtension(error: unknown): AgentMemoryError {
  return new AgentMemoryError(
    'MISSING_DEPENDENCY',
    `Could not load the sqlite-vec extension (${(error as Error).message}). Install it for this platform: npm install sqlite-vec (it pulls sqlite-vec-<os>-<arch>).`,
    { cause: error },
  );
}

/** Loads sqlite-vec into `db` unless it already is (once per connection); MISSING_DEPENDENCY when it cannot. */
export function useVectorExtension(db: Database.Database): void {
  if (loaded.has(db)) return;
  try {
    sqliteVec.load(db);
  } catch (error) {
    throw missingExtension(error);
  }
  loaded.add(db);
}

let present = false;

/** sqlite-vec's platform package and file (its own naming, `getLoadablePath`), for a quick look. */
function platformFile(): string {
  const os = process.platform === 'win32' ? 'windows' : process.platform;
  const suffix = process.platform === 'win32' ? 'dll' : process.platform === 'darwin' ? 'dylib' : 'so';
  return join(`sqlite-vec-${os}-${process.arch}`, `vec0.${suffix}`);
}

/**
 * Fails with MISSING_DEPENDENCY when sqlite-vec's loadable file for this platform is not installed
 * (an unsupported platform, an install that omitted optional dependencies), without loading it: an
 * open fails at once, as when every open loaded it, rather than at some later exact search. Checked
 * once per process. A file that is present but does not load (built for another libc) fails the
 * first statement that needs it, with the same error. `nodeModules` (the folder holding
 * better-sqlite3): where npm's flat layout puts the platform package too, a look that costs ~0.05 ms;
 * elsewhere (pnpm, a bundle) sqlite-vec resolves its path, ~2 ms of CPU in a fresh process.
 */
export function checkVectorExtension(nodeModules?: string): void {
  if (present) return;
  if (nodeModules && existsSync(join(nodeModules, platformFile()))) {
    present = true;
    return;
  }
  let path: string;
  try {
    path = sqliteVec.getLoadablePath();
  } catch (error) {
    throw missingExtension(error);
  }
  if (!existsSync(path)) throw missingExtension(new Error(`${path} does not exist`));
  present = true;
}
