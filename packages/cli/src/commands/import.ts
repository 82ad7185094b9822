import { existsSync, readFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { AgentMemoryError, invalidInput } from '@agentmem/core';
import type { Command } from 'commander';
import { type CliContext, refuseSpecialFile } from '../context';
import { importMemories, parseMemoryLines } from '../jsonl';
import { counted } from '../output';

interface ImportOptions {
  dryRun?: boolean;
}

export function register(program: Command, ctx: CliContext): void {
  program
    .command('import')
    .description('read memories from JSONL (as written by export); all or nothing, re-importing adds nothing')
    .argument('<file>', 'JSONL file, or - for stdin')
    .option('--dry-run', 'validate and count, write nothing')
    .action(async (file: string, options: ImportOptions) => {
      if (file !== '-') {
        refuseSpecialFile(
          resolve(file),
          'The file',
          'To import from a pipe, give - and pipe into stdin (cmd | agentmem import -).',
        );
      }
      const text = file === '-' ? await readAll(ctx.io.stdin) : readFile(file);
      const source = file === '-' ? 'stdin' : basename(file);
      const parsed = parseMemoryLines(text);
      if (parsed.errors.length > 0) throw invalidLines(source, parsed.errors);
      // A dry run must not create the database: without one, it counts against an empty in-memory store.
      const dryRunWithoutDb = options.dryRun && !existsSync(ctx.dbPath);
      const memory = await ctx.openMemory(dryRunWithoutDb ? { path: ':memory:' } : {});
      const result = await importMemories(
        memory,
        parsed.lines.map((l) => l.value),
        {
          tenant: ctx.options.tenant,
          source,
          dryRun: options.dryRun,
          progress: (phase, done, total) => ctx.progress(phase, done, total),
        },
      );
      ctx.emit({ file: source, ...result }, () =>
        ctx.print(
          `${result.dryRun ? 'Would import' : 'Imported'} ${result.imported} of ${counted(result.total, 'memory', 'memories')} from ${source}; ` +
            `${result.skipped} already present.`,
        ),
      );
    });
}

/** One line however many lines are bad: the first three, then how many more (`--json` lists all, from `details`). */
function invalidLines(source: string, errors: readonly { line: number; message: string }[]): AgentMemoryError {
  const shown = errors.slice(0, 3).map((e) => `line ${e.line}: ${e.message}`);
  if (errors.length > 3) shown.push(`and ${errors.length - 3} more; --json lists every line`);
  return new AgentMemoryError(
    'INVALID_INPUT',
    `${source} has ${counted(errors.length, 'invalid line', 'invalid lines')} (${shown.join('; ')}); nothing was imported. Fix them and import again.`,
    { details: { errors } },
  );
}

function readFile(file: string): string {
  try {
    const bytes = readFileSync(resolve(file));
    const nul = bytes.indexOf(0);
    if (nul >= 0)
      throw invalidInput(
        `${file} is not a text file (NUL byte at offset ${nul}); import reads JSONL as written by export.`,
      );
    return bytes.toString('utf8');
  } catch (error) {
    if (AgentMemoryError.isInstance(error)) throw error;
    const path = resolve(file);
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EISDIR') {
      throw invalidInput(`${path} is a directory; give a JSONL file (as written by agentmem export), or - for stdin.`, {
        path,
      });
    }
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      throw new AgentMemoryError('NOT_FOUND', `No file at ${path}. Check the path, or pass - to read stdin.`, {
        cause: error,
        details: { path },
      });
    }
    throw new AgentMemoryError('NOT_FOUND', `Cannot read ${path}: ${(error as Error).message}`, {
      cause: error,
      details: { path },
    });
  }
}

async function readAll(stdin: Readable | undefined): Promise<string> {
  if (!stdin) throw invalidInput('No stdin to read from: pass a file path instead of -.');
  let text = '';
  stdin.setEncoding('utf8');
  for await (const chunk of stdin) text += chunk;
  return text;
}
