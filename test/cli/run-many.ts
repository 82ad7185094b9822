// Runs several `agentmem` command lines one after another in this process (the real entry point) and
// prints one JSON line per run: for tests that must survive a command that blocks forever (the
// parent kills this process after a timeout instead of hanging with it).
import { main } from '@agentmem/cli';

const runs = JSON.parse(process.argv[2] ?? '[]') as string[][];
for (const argv of runs) {
  let stderr = '';
  let stdout = '';
  const code = await main(argv, {
    stdout: (t) => {
      stdout += t;
    },
    stderr: (t) => {
      stderr += t;
    },
    isTTY: false,
  });
  process.stdout.write(`${JSON.stringify({ argv, code, stdout, stderr })}\n`);
}
