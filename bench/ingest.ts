/**
 * Ingest on SQLite: `rememberMany` of generated memories (the recall bench's
 * sentences) in batches of 5,000 into a new file, the rate per second of CPU
 * with the embedding's CPU time subtracted (goal: 20,000/s).
 *
 *   npm run bench -- ingest [--count 50000] [--floors] [--entities]
 *
 * `--entities`: the recall bench's `--entities` corpus (people named in each memory, one of 20
 * speakers in its metadata), stored twice into new files, with entity extraction off
 * (`entities: false`) and on (the default): what finding and linking entities costs a write.
 *
 * `--floors` then copies the same rows, bytes unchanged, from that file into
 * new files with raw SQL (one transaction per 5,000 memories, the backend's
 * pragmas), once per way of storing a memory: what SQLite alone costs for the
 * bytes each layout writes. Those rows are not the store's behaviour; they
 * bound what a change of the data model could gain.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { HashingEmbedder, MemoryStore } from '@agentmem/core';
import { SqliteBackend } from '@agentmem/sqlite';
import { namer, textGenerator } from './recall';

const BATCH = 5000;

const cpuMs = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      count: { type: 'string', default: '50000' },
      floors: { type: 'boolean', default: false },
      entities: { type: 'boolean', default: false },
    },
  });
  const count = Number(values.count);
  const dir = mkdtempSync(join(tmpdir(), 'agentmem-ingest-bench-'));
  try {
    const embedder = new HashingEmbedder();
    const next = textGenerator(42);
    const name = namer(11);
    const contents = Array.from({ length: count }, () => (values.entities ? name(next(8, 20)) : next(8, 20)));
    let embedCpu = 0;
    const embed = embedder.embed.bind(embedder);
    embedder.embed = async (texts, options) => {
      const start = process.cpuUsage();
      const result = await embed(texts, options);
      embedCpu += cpuMs(start);
      return result;
    };
    const path = join(dir, 'ingest.db');
    console.log(
      `ingest bench: ${count} memories, rememberMany in batches of ${BATCH}, hashing embedder (load average ${loadavg()[0]!.toFixed(1)})`,
    );
    for (const entities of values.entities ? [false, true] : [true]) {
      const file = values.entities && !entities ? join(dir, 'no-entities.db') : path;
      const store = new MemoryStore({ backend: new SqliteBackend({ path: file }), embedder, entities });
      await store.init();
      embedCpu = 0;
      const start = process.cpuUsage();
      for (let i = 0; i < count; i += BATCH) {
        await store.rememberMany(
          contents.slice(i, i + BATCH).map((content, j) => ({
            content,
            type: 'user' as const,
            ...(values.entities ? { metadata: { speaker: `Speaker${(i + j) % 20}` } } : {}),
          })),
        );
      }
      const total = cpuMs(start);
      // Close saves the keyword index when a search loaded it (schema 9; none here): its own line.
      const closing = process.cpuUsage();
      await store.close();
      const closeCpu = cpuMs(closing);
      const rate = Math.round(count / ((total - embedCpu) / 1000));
      const label = values.entities ? `rememberMany, entities ${entities ? 'on' : 'off'}` : 'rememberMany';
      console.log(
        `${label}: ${total.toFixed(0)} ms CPU, of which embedding ${embedCpu.toFixed(0)} ms: ${rate.toLocaleString('en')}/s of CPU without it (goal 20,000/s: ${rate >= 20_000 ? 'met' : 'NOT met'})`,
      );
      console.log(
        `close: ${closeCpu.toFixed(0)} ms CPU; file ${(statSync(file).size / 2 ** 20).toFixed(1)} MB, ${Math.round(statSync(file).size / count).toLocaleString('en')} bytes a memory`,
      );
    }
    if (values.floors) await floors(dir, path, count);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Raw copies of the built file's rows into new files, per layout; CPU time of the inserts and commits. */
async function floors(dir: string, source: string, count: number): Promise<void> {
  const { openDatabase } = await import('@agentmem/sqlite');
  const memoryRows = 'SELECT * FROM src.records WHERE attr_kind = ? AND rowid BETWEEN ? AND ?';
  const historyRows = (copy: boolean) =>
    `INSERT INTO records SELECT rowid, id, namespace, tenant, text, attributes, ${copy ? 'payload' : "json_remove(payload, '$.memory')"}, ` +
    'attr_kind, attr_status, attr_type, attr_content_hash, attr_memory_id, context, attr_occurred_at FROM src.records ' +
    "WHERE attr_kind = 'history' AND attr_memory_id IN (SELECT id FROM src.records WHERE attr_kind = 'memory' AND rowid BETWEEN ? AND ?)";
  const vec0 =
    'INSERT INTO vectors (rowid, tenant, namespace, embedding) SELECT rowid, tenant, namespace, embedding FROM src.vector_codes WHERE rowid BETWEEN ? AND ?';
  const codes = 'INSERT INTO vector_codes SELECT * FROM src.vector_codes WHERE rowid BETWEEN ? AND ?';
  const layouts: [string, string[]][] = [
    [
      'as today: memory + history row with a copy + vec0 + codes and floats',
      [memoryRows, historyRows(true), vec0, codes],
    ],
    ['history row without the copy', [memoryRows, historyRows(false), vec0, codes]],
    ['no vec0 (each vector once, in the codes table)', [memoryRows, historyRows(true), codes]],
    ['both: no copy, no vec0', [memoryRows, historyRows(false), codes]],
    ['memory rows + codes and floats only', [memoryRows, codes]],
  ];
  const src = openDatabase(source, { readonly: true });
  const memoryRowids = src
    .prepare("SELECT rowid FROM records WHERE attr_kind = 'memory' ORDER BY rowid")
    .pluck()
    .all() as number[];
  src.close();
  console.log(
    `\nwrite floors: the ${count} memories' rows copied with raw SQL into new files, ${BATCH} memories a transaction (CPU)`,
  );
  for (const [label, statements] of layouts) {
    const path = join(dir, 'floor.db');
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
    // An empty file with the store's schema (vectors included), then a raw connection as the backend opens one.
    const empty = new SqliteBackend({ path });
    await empty.init({ dimension: 384 });
    await empty.close();
    const db = openDatabase(path);
    db.prepare('ATTACH DATABASE ? AS src').run(source);
    const prepared = statements.map((sql) => db.prepare(sql));
    const start = process.cpuUsage();
    for (let i = 0; i < memoryRowids.length; i += BATCH) {
      const first = memoryRowids[i]!;
      const last = memoryRowids[Math.min(memoryRowids.length, i + BATCH) - 1]!;
      db.exec('BEGIN IMMEDIATE');
      for (const statement of prepared) {
        if (statement.source === memoryRows) statement.run('memory', first, last);
        else statement.run(first, last);
      }
      db.exec('COMMIT');
    }
    const used = cpuMs(start);
    db.close();
    console.log(
      `${label.padEnd(70)} ${used.toFixed(0).padStart(6)} ms  ${((used * 1000) / count).toFixed(1).padStart(5)} µs a memory`,
    );
  }
}
