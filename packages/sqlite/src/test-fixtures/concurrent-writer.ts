// A child process of the multi-process test: opens the shared file, says
// "ready", waits for "go" on stdin, then writes `count` memories one by one.
import { once } from 'node:events';
import { createSqliteMemory } from '@agentmem/sqlite';

const [path, worker, countArg, mode] = process.argv.slice(2);
const count = Number(countArg);
const memory = await createSqliteMemory({ path: path!, agentId: `worker-${worker}` });
process.stdout.write('ready\n');
await once(process.stdin, 'data');
let written = 0;
for (let i = 0; i < count; i++) {
  await memory.remember({
    // "shared": every worker writes the same facts (the race for one memory's create entry).
    content:
      mode === 'shared'
        ? `Shared observation number ${i}: build step ${i * 7} passed`
        : `Worker ${worker} observation number ${i}: build step ${i * 7} passed`,
    type: 'project',
  });
  written++;
}
await memory.close();
process.stdout.write(`${JSON.stringify({ worker, written })}\n`);
process.stdin.destroy();
