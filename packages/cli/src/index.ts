import { toDisplayText } from '@agentmem/core';
import { type Command, CommanderError } from 'commander';
import { CliContext } from './context';
import { CliError, describeError } from './errors';
import { type CliIo, processIo } from './io';
import { buildProgram } from './program';

export { CliContext, DEFAULT_DB_PATH, type GlobalOptions, type OpenMemoryOptions } from './context';
export type { DemoContext, DemoSection } from './demo';
export { CliError, type CliErrorCode } from './errors';
export type { CliIo } from './io';
export * from './output';
export { buildProgram, type CommandModule } from './program';

/**
 * Runs the `agentmem` command line with `argv` (without node and script) and
 * returns the exit code: 0 success, 1 error, 2 usage error.
 */
export async function main(argv: string[], io: CliIo = processIo()): Promise<number> {
  let program: Command | undefined;
  const ctx = new CliContext(io, () => program);
  const json = argv.includes('--json'); // also before (or without) a successful parse
  let code: number;
  try {
    program = buildProgram(ctx);
    await program.parseAsync(argv, { from: 'user' });
    code = ctx.exitCode;
  } catch (error) {
    ctx.endProgress();
    code = report(ctx, error, json);
  }
  try {
    await ctx.close(code !== 0);
  } catch (error) {
    code = Math.max(code, report(ctx, error, json));
  }
  return code;
}

function report(ctx: CliContext, error: unknown, jsonFlag: boolean): number {
  // Help and version were printed by commander already (`agentmem` alone prints help to stderr: a usage error).
  if (
    error instanceof CommanderError &&
    ['commander.helpDisplayed', 'commander.version', 'commander.help'].includes(error.code)
  ) {
    if (error.code !== 'commander.help' || !(ctx.json || jsonFlag)) return error.exitCode === 0 ? 0 : 2;
    // No command (`agentmem --json`, `agentmem skills --json`): a usage error as JSON, like the others, not help text.
    error = new CliError(
      'USAGE',
      'No command given: run agentmem <command> (agentmem --help lists the commands, agentmem <command> --help its subcommands and options).',
    );
  }
  const { code, message, exitCode, stack, details, helpHint, helpCommand } = describeError(ctx.explain(error));
  if (ctx.json || jsonFlag) {
    ctx.io.stderr(`${jsonError(code, message, details)}\n`);
  } else {
    const hint = helpHint ? ` (see ${helpCommand ?? ctx.command ?? 'agentmem'} --help)` : '';
    // One line, and stored text in a message cannot drive the terminal.
    ctx.io.stderr(`error [${code}]: ${toDisplayText(message).replace(/\s*\n\s*/g, ' ')}${hint}\n`);
    if (stack && process.env.AGENTMEM_DEBUG) ctx.io.stderr(`${stack}\n`);
  }
  return exitCode;
}

/** `{"error":{"code","message","details"?}}` on one line; details that cannot be JSON (a cycle, a BigInt) are left out. */
function jsonError(code: string, message: string, details: unknown): string {
  if (details !== undefined) {
    try {
      return JSON.stringify({ error: { code, message, details } });
    } catch {
      // fall through: the code and message still say what went wrong
    }
  }
  return JSON.stringify({ error: { code, message } });
}
