import { AgentMemoryError } from '@agentmem/core';
import { CommanderError } from 'commander';

export type CliErrorCode = 'USAGE' | 'CONFIRMATION_REQUIRED' | 'ABORTED';

/** An error of the command line itself (as opposed to the store's AgentMemoryError). */
export class CliError extends Error {
  readonly code: CliErrorCode;
  readonly exitCode: number;
  /** False when the message names its own next step: no "(see agentmem <command> --help)" after it. */
  readonly helpHint: boolean;
  /** The help the hint names (`agentmem`); default: the help of the command that was running. */
  readonly helpCommand?: string;

  constructor(
    code: CliErrorCode,
    message: string,
    exitCode = code === 'USAGE' ? 2 : 1,
    options: { helpHint?: boolean; helpCommand?: string } = {},
  ) {
    super(message);
    this.name = 'CliError';
    this.code = code;
    this.exitCode = exitCode;
    this.helpHint = options.helpHint ?? code === 'USAGE';
    if (options.helpCommand) this.helpCommand = options.helpCommand;
  }
}

export interface ReportedError {
  code: string;
  message: string;
  exitCode: number;
  /** Add "(see agentmem <command> --help)" to the text line (usage errors that do not name their own next step). */
  helpHint?: boolean;
  /** The command whose `--help` the hint names (`agentmem recall`); default: the running command, else `agentmem`. */
  helpCommand?: string;
  /** The error's structured details (an AgentMemoryError's `details`), in the `--json` error. */
  details?: Readonly<Record<string, unknown>>;
  /** Printed only for unexpected errors, when AGENTMEM_DEBUG is set. */
  stack?: string;
}

const REMEMBER = '`agentmem remember "<fact>" --type <type>` stores a memory';
const RECALL = '`agentmem recall "<query>"` finds memories';
const LIST = '`agentmem export` prints every memory as JSONL (`agentmem inspect` shows them in a browser)';

/**
 * The verbs of other memory tools (mem0's add and search, LangGraph's put and get) and of habit, with the
 * command that does it here: spelling suggestions cannot find these ("search" is nearest to "branch").
 */
const COMMAND_FOR: Record<string, string> = {
  add: REMEMBER,
  put: REMEMBER,
  save: REMEMBER,
  store: REMEMBER,
  search: RECALL,
  query: RECALL,
  find: RECALL,
  get: RECALL,
  retrieve: RECALL,
  delete: '`agentmem forget <id>` deletes a memory',
  remove: '`agentmem forget <id>` deletes a memory',
  list: LIST,
  ls: LIST,
  show: LIST,
  status: '`agentmem stats` counts the memories per namespace',
};

/** Maps anything thrown by a command to what the user sees and the exit code. */
export function describeError(error: unknown): ReportedError {
  if (AgentMemoryError.isInstance(error)) {
    const details = error.details && Object.keys(error.details).length > 0 ? error.details : undefined;
    return { code: error.code, message: error.message, exitCode: 1, ...(details ? { details } : {}) };
  }
  if (error instanceof CliError)
    return {
      code: error.code,
      message: error.message,
      exitCode: error.exitCode,
      helpHint: error.helpHint,
      ...(error.helpCommand ? { helpCommand: error.helpCommand } : {}),
    };
  if (error instanceof CommanderError) {
    // One line, as documented: commander puts its "(Did you mean …?)" on a line of its own.
    const message = error.message.replace(/^error: /, '').replace(/\s*\n\s*/g, ' ');
    const { helpCommand } = error as CommanderError & { helpCommand?: string };
    const otherName = helpCommand ? undefined : /^unknown command '([^']+)'/.exec(message)?.[1]?.toLowerCase();
    const instead = otherName && Object.hasOwn(COMMAND_FOR, otherName) ? COMMAND_FOR[otherName] : undefined;
    return {
      code: 'USAGE',
      // Commander's guess by spelling ("search": "Did you mean branch?") is wrong for another tool's verb.
      message: instead ? `unknown command '${otherName}': ${instead}` : message,
      exitCode: error.exitCode === 0 ? 0 : 2,
      helpHint: true,
      ...(helpCommand ? { helpCommand } : {}),
    };
  }
  const e = error instanceof Error ? error : new Error(String(error));
  return { code: 'INTERNAL', message: e.message, exitCode: 1, stack: e.stack };
}
