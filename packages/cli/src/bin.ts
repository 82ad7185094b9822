#!/usr/bin/env node
import { main } from './index';

// `agentmem export | head`: the reader left; stop quietly instead of crashing on EPIPE.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  process.exit(process.exitCode ?? 0);
});

main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
