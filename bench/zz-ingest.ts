import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HashingEmbedder, MemoryStore } from '@agentmem/core';
import { SqliteBackend } from '@agentmem/sqlite';
import { textGenerator } from './recall';
const n = Number(process.argv[2] ?? 20000);
const contents = Array.from({ length: n }, textGenerator(42).bind(null, 8, 20));
const dir = mkdtempSync(join(tmpdir(), 'ingest-'));
const embedder = new HashingEmbedder();
let embedCpu = 0;
const orig = embedder.embed.bind(embedder);
embedder.embed = async (t, o) => {
  const c = process.cpuUsage();
  const r = await orig(t, o);
  const u = process.cpuUsage(c);
  embedCpu += (u.user + u.system) / 1e6;
  return r;
};
const store = await MemoryStore.open({ backend: new SqliteBackend({ path: join(dir, 'm.db') }), embedder });
const c0 = process.cpuUsage();
const t0 = performance.now();
for (let i = 0; i < n; i += 5000)
  await store.rememberMany(contents.slice(i, i + 5000).map((content) => ({ content, type: 'user' as const })));
const u = process.cpuUsage(c0);
const cpu = (u.user + u.system) / 1e6;
console.log({ n, wall: (performance.now() - t0) / 1000, cpu, embedCpu, ratePerSecCpuNoEmbed: n / (cpu - embedCpu) });
await store.close();
