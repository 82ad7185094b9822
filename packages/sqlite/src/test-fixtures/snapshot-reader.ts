// A child process of the read-in-place test: opens a snapshot the way a merge does and prints how
// (the connection's name: a `file:` URI when read in place, `:memory:` for a copy) and what it holds.
import { sqliteSnapshotFormat } from '@agentmem/sqlite';

const backend = await sqliteSnapshotFormat.open(process.argv[2]!);
const name = (backend as unknown as { database: { name: string } }).database.name;
const records = await backend.count({ tenant: null });
await backend.close();
process.stdout.write(`${JSON.stringify({ name, records })}\n`);
