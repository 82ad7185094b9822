// A child of the fault suite: rememberMany of `count` memories in batches of `batch` into a SQLite file,
// printing `ack <n>` once the first n memories' call returned (acknowledged), then `closed` after close
// (which saves the keyword index a recall loaded after the first batch: the kill may land there too).
//   bulk-ingest-child.ts <file> <count> <batch>
import { HashingEmbedder, MemoryStore } from '@agentmem/core';
import { SqliteBackend } from '@agentmem/sqlite';
import { bulkContent } from './bulk-ingest';

const [path, count, batch] = process.argv.slice(2);
const store = await MemoryStore.open({ backend: new SqliteBackend({ path: path! }), embedder: new HashingEmbedder() });
process.stdout.write('started\n');
for (let i = 0; i < Number(count); i += Number(batch)) {
  const end = Math.min(Number(count), i + Number(batch));
  await store.rememberMany(
    Array.from({ length: end - i }, (_, j) => ({ content: bulkContent(i + j), type: 'user' as const })),
  );
  process.stdout.write(`ack ${end}\n`);
  // A recall after the first batch loads the keyword index: later batches reach it as they are
  // written, and close saves it (the kill may land in that save).
  if (i === 0) await store.recall('service port', { k: 5, reinforce: false });
}
await store.close();
process.stdout.write('closed\n');
