import { AgentMemoryError } from '@agentmem/core';
import { parseServerArgs, USAGE } from './config';
import { serve } from './run';
import { SERVER_VERSION } from './server/create-server';

/**
 * The `agentmem-mcp` command: parses flags and environment, serves until the
 * client leaves. Returns the exit code: 0, 1 (error) or 2 (bad usage).
 * Everything it prints goes to stderr, except --help and --version.
 */
export async function main(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  try {
    const parsed = parseServerArgs(argv, env);
    if (parsed.kind === 'help') {
      process.stdout.write(`${USAGE}\n`);
      return 0;
    }
    if (parsed.kind === 'version') {
      process.stdout.write(`${SERVER_VERSION}\n`);
      return 0;
    }
    await serve(parsed.config);
    return 0;
  } catch (error) {
    const known = AgentMemoryError.isInstance(error);
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`agentmem-mcp: error [${known ? error.code : 'INTERNAL'}]: ${message}\n`);
    if (!known && process.env.AGENTMEM_DEBUG && error instanceof Error) process.stderr.write(`${error.stack}\n`);
    return known && error.code === 'INVALID_INPUT' ? 2 : 1;
  }
}
