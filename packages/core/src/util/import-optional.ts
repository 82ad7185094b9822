import { AgentMemoryError } from '../errors';

/**
 * Loads an optional package only when a feature needs it; when it is not
 * installed, a MISSING_DEPENDENCY error whose message (`install`) says what
 * to do. `load` is the caller's own `() => import(name)`, so the package is
 * resolved from the caller's package (strict layouts such as pnpm), and a
 * name held in a variable keeps bundlers from inlining it.
 */
export async function importOptional<T>(load: () => Promise<T>, install: string): Promise<T> {
  try {
    return await load();
  } catch (error) {
    throw new AgentMemoryError('MISSING_DEPENDENCY', install, { cause: error });
  }
}
