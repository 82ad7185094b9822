// A child of the fault suite: runs one agentmem command on a store (through
// the real CLI entry point, in this process) and says when it starts, so the
// parent can kill -9 it at a random moment of the operation.
import { main } from '@agentmem/cli';

const argv = process.argv.slice(2);
process.stdout.write('started\n');
const started = process.hrtime.bigint();
const code = await main(argv, { stdout: () => {}, stderr: (t) => process.stderr.write(t), isTTY: false });
process.stdout.write(`done ${code} ${Number(process.hrtime.bigint() - started) / 1e6}\n`);
