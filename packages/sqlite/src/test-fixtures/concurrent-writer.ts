// A child process of the multi-process test: opens the shared file, says
// "ready", waits for "go" on stdin, then writes `count` memories one by one.
import { once } from 'node:events';
import { createSqliteMemory } from '@agentmem/sqlite';

const [path, worker, countArg] = process.argv.slice(2);
const count = Number(countArg);
const memory = await createSqliteMemory({ path: path!, agentId: `worker-${worker}` });
process.stdout.write('ready\n');
await once(process.stdin, 'data');
let written = 0;
for (let i = 0; i < count; i++) {
  await memory.remember({
    content: `Worker ${worker} observation number ${i}: build step ${i * 7} passed`,
    type: 'project',
  });
  written++;
}
await memory.close();
process.stdout.write(`${JSON.stringify({ worker, written })}\n`);
process.stdin.destroy();
