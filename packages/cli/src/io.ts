import type { Readable } from 'node:stream';

/**
 * Where the CLI reads and writes. `main` takes one so that tests run the
 * command in-process and capture its output; `bin.ts` wires it to the process.
 */
export interface CliIo {
  /** Receives raw text (lines carry their own `\n`). */
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Answers to confirmation prompts; `import -` reads the file from here. */
  stdin?: Readable;
  /** True when a person is at the terminal: prompts and progress are shown only then. */
  isTTY?: boolean;
  /** Terminal width: tables cut their last column to fit. */
  columns?: number;
}

export function processIo(): CliIo {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    stdin: process.stdin,
    isTTY: Boolean(process.stdin.isTTY && process.stderr.isTTY),
    ...(process.stdout.isTTY ? { columns: process.stdout.columns } : {}),
  };
}
