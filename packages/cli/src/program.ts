import { Command, Option } from 'commander';
import pkg from '../package.json';
import * as branch from './commands/branch';
import * as compact from './commands/compact';
import * as decay from './commands/decay';
import * as demo from './commands/demo';
import * as evalCommand from './commands/eval';
import * as exportCommand from './commands/export';
import * as forget from './commands/forget';
import * as history from './commands/history';
import * as importCommand from './commands/import';
import * as inspect from './commands/inspect';
import * as mcp from './commands/mcp';
import * as optimize from './commands/optimize';
import * as recall from './commands/recall';
import * as remember from './commands/remember';
import * as restore from './commands/restore';
import * as skills from './commands/skills';
import * as stats from './commands/stats';
import * as teleport from './commands/teleport';
import { type CliContext, DEFAULT_DB_PATH } from './context';
import { EMBEDDER_FORMS, parseEmbedder } from './embedder';
import { CliError } from './errors';

/** A command module: `src/commands/<name>.ts` exporting `register`. */
export interface CommandModule {
  register(program: Command, ctx: CliContext): void;
}

// Adding a command: a new file in ./commands and one entry here (order = order in --help).
const commands: CommandModule[] = [
  demo,
  remember,
  recall,
  skills,
  evalCommand,
  forget,
  restore,
  history,
  stats,
  decay,
  compact,
  optimize,
  exportCommand,
  importCommand,
  teleport,
  branch,
  mcp,
  inspect,
];

/** The `agentmem` program: global options, then every command of the list above. */
export function buildProgram(ctx: CliContext): Command {
  const program = new Command('agentmem')
    .description('Long-term memory and skills for AI agents: operate a local agentmem store.')
    .version(pkg.version, '-V, --version')
    .addOption(
      new Option(
        '--db <path|url>',
        'memory database file, postgres://user:pw@host/db, or a Qdrant collection http(s)://host:6333/collections/<name>',
      )
        .env('AGENTMEM_DB')
        .default(DEFAULT_DB_PATH),
    )
    .addOption(
      new Option('--embedder <id>', `embedder of the store: ${EMBEDDER_FORMS.replaceAll('`', '')}`)
        .env('AGENTMEM_EMBEDDER')
        .argParser(parseEmbedder),
    )
    .option('--json', 'machine-readable JSON output')
    .option('--tenant <id>', 'tenant scope (e.g. a user id)')
    .option('--branch <name>', 'branch for project and reference memories')
    .option('--agent <id>', 'agent id recorded as provenance on writes')
    .option('-y, --yes', 'answer yes to confirmations (needed without a terminal)')
    .showSuggestionAfterError()
    // `agentmem <command> --help` lists --db, --json, --yes... too (subcommands copy this setting).
    .configureHelp({ showGlobalOptions: true })
    .helpCommand(false)
    // Subcommands inherit these two: errors come back to `main` instead of exiting the process.
    .exitOverride()
    .configureOutput({
      writeOut: (text) => ctx.io.stdout(text),
      // Help printed for a missing command: with --json, \`main\` reports a JSON usage error instead.
      writeErr: (text) => {
        if (!ctx.json) ctx.io.stderr(text);
      },
      outputError: () => {}, // `main` prints every error the same way (and as JSON with --json)
    });
  for (const command of commands) command.register(program, ctx);
  // A usage error a command's action throws names that command's help, as commander's own errors do.
  program.hook('preAction', (_program, action) => {
    ctx.command = commandPath(action);
  });
  registerHelp(program);
  pointUsageErrorsAtOwnHelp(program);
  return program;
}

/**
 * A usage error of `agentmem recall` (unknown option, missing argument, bad value) names
 * `agentmem recall --help`, which lists recall's options; the top-level help does not.
 */
function pointUsageErrorsAtOwnHelp(parent: Command): void {
  for (const command of parent.commands) {
    const helpCommand = commandPath(command);
    command.exitOverride((error) => {
      throw Object.assign(error, { helpCommand });
    });
    pointUsageErrorsAtOwnHelp(command);
  }
}

/** How a (sub)command is typed: `agentmem skills load`. */
function commandPath(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c?.parent; c = c.parent) names.unshift(c.name());
  return ['agentmem', ...names].join(' ');
}

/** `agentmem help [command...]`: that command's help, or a usage error naming an unknown one. */
function registerHelp(program: Command): void {
  program
    .command('help')
    .description('display help for a command')
    .argument('[command...]', 'command (and subcommand) name')
    .action((names: string[]) => {
      let target = program;
      for (const [i, name] of names.entries()) {
        const next = target.commands.find((c) => c.name() === name || c.aliases().includes(name));
        if (!next) {
          const known = target.commands.map((c) => c.name()).filter((n) => n !== 'help');
          throw new CliError(
            'USAGE',
            `unknown command '${names.slice(0, i + 1).join(' ')}'; commands: ${known.join(', ')}`,
            2,
            { helpCommand: 'agentmem' }, // the help that lists the commands, not help's own
          );
        }
        target = next;
      }
      target.outputHelp();
    });
}
