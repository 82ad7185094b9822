/**
 * Bench dispatcher: `npm run bench -- <name> [args]` runs `bench/<name>.ts`'s
 * exported `run(args)`. Adding a bench = one file exporting `run` + one line below.
 */
const BENCHES: Record<string, string> = {
  cold: 'a new process on a 100k (or --size 1000000) SQLite store: open + first recall against a warm recall (goal <= 10x; at 1M <= 300 ms), a no-match query, agentmem recall vs --help',
  decay: 'applyDecay over 100k memories (goal <= 1 s), idempotent second pass, compact',
  ingest:
    'rememberMany into a new SQLite file (goal 20,000/s of CPU without embedding); --floors: raw SQL per storage layout',
  inspector:
    'inspector on a 100k store: time to first paint of the overview in Chromium (goal < 1 s), per-view server cost',
  locomo: 'LoCoMo: evidence recall@5/10/25, keyword vs dense vs hybrid, per backend, turn vs conversation ingest',
  'postgres-server':
    'Postgres on a real server beside SQLite: ingest/s, recall p50/p95 at 10k and 100k (HNSW); --locomo: LoCoMo rows',
  'postgres-keyword': 'Postgres (PGlite) keyword search alone at 10k and 100k records: how BM25 in SQL scales',
  recall: 'recall latency p50/p95 at 10k and 100k memories: SQLite, in-memory, raw sqlite-vec + FTS5',
  skills: 'skill activation latency over 500 or 1,000 synthetic skills (goal: p50 <= 1 ms CPU), in-memory or SQLite',
  'skills-quality': 'skills-dev: top-1, hit@3, unrelated false activations, mean activated, latency (memory + SQLite)',
  teleport: 'snapshot + diff + merge + undo of a 100k-memory SQLite store (goal: snapshot + merge <= 5 s)',
};

export interface Bench {
  run(args: string[]): Promise<void>;
}

async function main(): Promise<void> {
  const [name, ...args] = process.argv.slice(2);
  if (!name || name === '--help' || name === '-h') {
    console.log('usage: npm run bench -- <name> [args]\n');
    for (const [n, description] of Object.entries(BENCHES)) console.log(`  ${n.padEnd(15)} ${description}`);
    return;
  }
  if (!(name in BENCHES)) {
    console.error(`Unknown bench "${name}". Known: ${Object.keys(BENCHES).join(', ')}.`);
    process.exitCode = 1;
    return;
  }
  const bench = (await import(`./${name}.ts`)) as Bench;
  await bench.run(args);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
