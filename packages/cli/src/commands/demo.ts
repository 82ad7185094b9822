import type { Command } from 'commander';
import type { CliContext } from '../context';
import { DEMO_TOPICS, runDemo } from '../demo';

export function register(program: Command, ctx: CliContext): void {
  program
    .command('demo')
    .description(`a guided tour on a temporary store, removed afterwards (--db NEW_PATH keeps it): ${DEMO_TOPICS}`)
    .action(() => runDemo(ctx));
}
