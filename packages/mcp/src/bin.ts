#!/usr/bin/env node
import { main } from './main';

// The client went away mid-reply: nothing left to say, stop quietly.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  process.exit(process.exitCode ?? 0);
});

main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
