// A child of the fault suite: opens a store and runs its optimize (SqliteBackend.optimize). Prints
// `optimized` when it returned and `closed` after the close, each with ms since `started`.
//   optimize-child.ts <file>
import { SqliteBackend } from '@agentmem/sqlite';

const [path] = process.argv.slice(2);
const start = performance.now();
const say = (line: string) => process.stdout.write(`${line} ${(performance.now() - start).toFixed(1)}\n`);
say('started');
const backend = new SqliteBackend({ path: path! });
await backend.optimize();
say('optimized');
await backend.close();
say('closed');
