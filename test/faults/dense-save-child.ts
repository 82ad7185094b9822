// A child of the fault suite: opens a store of dense vectors that has no saved dense index, recalls once
// (the first dense search loads the index from the codes table and saves it into the file), then writes
// batches with rememberMany and closes (which saves the index again: it was loaded and many vectors were
// written). Prints `loaded` after the recall, `ack <n>` once the first n new memories' call returned,
// `closing` before close and `closed` after it, each with ms since `started`.
// With `hashing`, the default HashingEmbedder: the recall's words are in no memory, so its dense search
// builds the sparse index and saves it.
//   dense-save-child.ts <file> <batches> <batch> [semantic|hashing]
import { HashingEmbedder, MemoryStore } from '@agentmem/core';
import { SemanticTestEmbedder } from '@agentmem/core/testing';
import { SqliteBackend } from '@agentmem/sqlite';
import { denseContent } from './dense-save';

const [path, batches, batch, kind] = process.argv.slice(2);
const store = await MemoryStore.open({
  backend: new SqliteBackend({ path: path! }),
  embedder: kind === 'hashing' ? new HashingEmbedder() : new SemanticTestEmbedder(),
});
const start = performance.now();
const say = (line: string) => process.stdout.write(`${line} ${(performance.now() - start).toFixed(1)}\n`);
say('started');
await store.recall('harbour engine', { k: 5, reinforce: false });
say('loaded');
const size = Number(batch);
for (let b = 0; b < Number(batches); b++) {
  await store.rememberMany(
    Array.from({ length: size }, (_, j) => ({ content: denseContent(b * size + j), type: 'user' as const })),
  );
  say(`ack ${(b + 1) * size}`);
}
say('closing');
await store.close();
say('closed');
