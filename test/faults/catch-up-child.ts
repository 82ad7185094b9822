// A child of the fault suite: another process writing into a store whose keyword index is saved, as a
// hook does (one write a call): a recall loads the restored index, then `count` writes, each printing
// `ack <n>` once it returned: a new memory, and every 4th write also an update of a saved memory's
// content and every 5th a forget of one (writes the next process catches up on), then `closed`.
//   catch-up-child.ts <file> <count>
import { HashingEmbedder, MemoryStore } from '@agentmem/core';
import { SqliteBackend } from '@agentmem/sqlite';
import { catchUpContent } from './catch-up';

const [path, count] = process.argv.slice(2);
const store = await MemoryStore.open({ backend: new SqliteBackend({ path: path! }), embedder: new HashingEmbedder() });
const saved: string[] = [];
for await (const m of store.memories()) if (saved.push(m.id) >= 100) break;
process.stdout.write('started\n');
await store.recall('service port', { k: 5, reinforce: false });
for (let i = 0; i < Number(count); i++) {
  await store.remember({ content: catchUpContent(i), type: 'user' });
  if (i % 4 === 0)
    await store.update(saved[i]!, { content: `rewritten ${i}: service ${i % 17} moved to port ${9000 + i}` });
  if (i % 5 === 0) await store.forget(saved[99 - i]!);
  process.stdout.write(`ack ${i + 1}\n`);
}
await store.close();
process.stdout.write('closed\n');
