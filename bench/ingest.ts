/**
 * Ingest: `rememberMany` of generated memories (the recall bench's sentences)
 * in batches of 5,000 into a new SQLite file and into the in-memory backend,
 * beside a reference row: the same records and vectors in a hand-built
 * better-sqlite3 + sqlite-vec + FTS5 file, one transaction per batch. One table:
 * CPU per memory with the embedding's CPU subtracted (and its system part: the
 * kernel's work for the WAL's and checkpoint's writes), wall time without the
 * embedding, the file's bytes per memory, and each as a ratio to the reference
 * of the same run (the machine is shared: only same-run ratios compare).
 * Goals (issue 30): rememberMany ≥ 0.5× the reference's rate, the in-memory
 * backend at least as fast as SQLite, bytes ≤ 2× the reference's.
 *
 *   npm run bench -- ingest [--count 50000] [--floors] [--entities]
 *
 * `--entities`: the recall bench's `--entities` corpus (people named in each memory, one of 20
 * speakers in its metadata), stored twice into new files, with entity extraction off
 * (`entities: false`) and on (the default): what finding and linking entities costs a write.
 *
 * `--floors` then copies the same rows from that file into new files with raw
 * SQL (one transaction per 5,000 memories, the backend's pragmas), once per way
 * of storing a memory (as stored now, and leaner layouts made from the same
 * rows): what SQLite alone costs for the bytes each layout writes. Those rows
 * are not the store's behaviour; they bound what a change of the data model
 * could gain.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { HashingEmbedder, InMemoryBackend, type MemoryBackend, MemoryStore } from '@agentmem/core';
import { SqliteBackend } from '@agentmem/sqlite';
import Database from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import { namer, textGenerator } from './recall';

const BATCH = 5000;

const cpuMs = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};
/** The kernel's share of CPU (system time: the WAL's and checkpoint's writes, page faults), in ms. */
const sysMs = (since: NodeJS.CpuUsage) => process.cpuUsage(since).system / 1000;

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
    let embedWall = 0;
    const embed = embedder.embed.bind(embedder);
    embedder.embed = async (texts, options) => {
      const start = process.cpuUsage();
      const wallStart = performance.now();
      const result = await embed(texts, options);
      embedCpu += cpuMs(start);
      embedWall += performance.now() - wallStart;
      return result;
    };
    const path = join(dir, 'ingest.db');
    console.log(
      `ingest bench: ${count} memories, rememberMany in batches of ${BATCH}, hashing embedder (load average ${loadavg()[0]!.toFixed(1)})`,
    );
    // The reference: the same records and vectors in a hand-built better-sqlite3 + sqlite-vec + FTS5
    // file, one transaction per batch. Its vectors are embedded before the clock starts.
    const { embeddings } = await embed(contents, { kind: 'document' } as never);
    const rows: Row[] = [referenceRow(join(dir, 'reference.db'), contents, embeddings, count)];
    const stores: [string, () => MemoryBackend, string | undefined][] = values.entities
      ? [
          [
            'rememberMany, SQLite, entities off',
            () => new SqliteBackend({ path: join(dir, 'no-entities.db') }),
            join(dir, 'no-entities.db'),
          ],
          ['rememberMany, SQLite, entities on', () => new SqliteBackend({ path }), path],
        ]
      : [
          ['rememberMany, SQLite', () => new SqliteBackend({ path }), path],
          ['rememberMany, in-memory backend', () => new InMemoryBackend(), undefined],
        ];
    for (const [label, backend, file] of stores) {
      const entities = !label.endsWith('entities off');
      const store = new MemoryStore({ backend: backend(), embedder, entities });
      await store.init();
      embedCpu = 0;
      embedWall = 0;
      const start = process.cpuUsage();
      const wallStart = performance.now();
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
      const sys = sysMs(start);
      const wall = performance.now() - wallStart - embedWall;
      // Close saves the indexes a bulk write leaves (keyword, sparse or binary dense: issue 30): its own column (CPU).
      const closing = process.cpuUsage();
      await store.close();
      rows.push({
        label,
        cpu: total - embedCpu,
        sys,
        wall,
        closeCpu: cpuMs(closing),
        bytes: file ? statSync(file).size : undefined,
      });
    }
    printRows(rows, count);
    if (values.floors) await floors(dir, path, count);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

interface Row {
  label: string;
  /** CPU ms of the writes, embedding excluded. */
  cpu: number;
  /** System CPU ms of the writes (the embedding's is near none: it is JavaScript). */
  sys: number;
  /** Wall ms of the writes, embedding excluded. */
  wall: number;
  closeCpu: number;
  bytes: number | undefined;
}

/**
 * The hand-built store a user would write without agentmem: a table of memories (id, text, JSON
 * metadata), a sqlite-vec vec0 table and an FTS5 index over the text, in WAL mode with
 * synchronous = NORMAL (as the backend opens its files; SQLite's other defaults), one prepared insert per row into each, one
 * transaction per batch. What a store that indexes the same records for hybrid search costs at least.
 */
function referenceRow(file: string, contents: string[], vectors: readonly Float32Array[], count: number): Row {
  const db = new Database(file);
  sqliteVec.load(db);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(`
    CREATE TABLE memories (rowid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, text TEXT NOT NULL, metadata TEXT NOT NULL);
    CREATE VIRTUAL TABLE memory_vectors USING vec0(embedding float[${vectors[0]!.length}] distance_metric=cosine);
    CREATE VIRTUAL TABLE memory_fts USING fts5(text, content = 'memories', content_rowid = 'rowid');
  `);
  const insert = db.prepare('INSERT INTO memories (id, text, metadata) VALUES (?, ?, ?)');
  const vector = db.prepare('INSERT INTO memory_vectors (rowid, embedding) VALUES (?, ?)');
  const fts = db.prepare('INSERT INTO memory_fts (rowid, text) VALUES (?, ?)');
  const start = process.cpuUsage();
  const wallStart = performance.now();
  for (let i = 0; i < count; i += BATCH) {
    db.exec('BEGIN IMMEDIATE');
    const at = new Date().toISOString();
    for (let j = i; j < Math.min(count, i + BATCH); j++) {
      const id = `mem_${j.toString(36)}`;
      const rowid = insert.run(id, contents[j], JSON.stringify({ type: 'user', createdAt: at })).lastInsertRowid;
      const v = vectors[j]!;
      vector.run(BigInt(rowid), Buffer.from(v.buffer, v.byteOffset, v.byteLength));
      fts.run(rowid, contents[j]);
    }
    db.exec('COMMIT');
  }
  const cpu = cpuMs(start);
  const sys = sysMs(start);
  const wall = performance.now() - wallStart;
  // Its close checkpoints the WAL's last pages into the file: counted beside ours, whose close saves the indexes.
  const closing = process.cpuUsage();
  db.close();
  const closeCpu = cpuMs(closing);
  return { label: 'reference: hand-built sqlite-vec + FTS5', cpu, sys, wall, closeCpu, bytes: statSync(file).size };
}

function printRows(rows: readonly Row[], count: number): void {
  const reference = rows[0]!;
  const rate = (r: Row) => Math.round(count / (r.cpu / 1000));
  // Write + close: since fill-1 rememberMany tokenises for the keyword index and the close only saves it
  // (before, the close re-read and tokenised the rows); the reference indexes its FTS5 text inside its
  // inserts, so this is the like-for-like rate.
  const both = (r: Row) => r.cpu + r.closeCpu;
  console.log(
    `\n${'store'.padEnd(40)} ${'CPU ms'.padStart(7)} ${'µs CPU/mem'.padStart(10)} ${'mem/s CPU'.padStart(10)} ${'µs sys/mem'.padStart(10)} ${'wall ms'.padStart(8)} ${'× ref'.padStart(6)} ${'close ms'.padStart(8)} ${'+close µs'.padStart(9)} ${'× ref'.padStart(6)} ${'bytes/mem'.padStart(9)} ${'× ref'.padStart(6)}`,
  );
  for (const r of rows) {
    console.log(
      [
        r.label.padEnd(40),
        r.cpu.toFixed(0).padStart(7),
        ((r.cpu * 1000) / count).toFixed(1).padStart(10),
        rate(r).toLocaleString('en').padStart(10),
        ((r.sys * 1000) / count).toFixed(1).padStart(10),
        r.wall.toFixed(0).padStart(8),
        (rate(r) / rate(reference)).toFixed(2).padStart(6),
        r.closeCpu.toFixed(0).padStart(8),
        ((both(r) * 1000) / count).toFixed(1).padStart(9),
        (both(reference) / both(r)).toFixed(2).padStart(6),
        (r.bytes === undefined ? '–' : Math.round(r.bytes / count).toLocaleString('en')).padStart(9),
        (r.bytes === undefined ? '–' : (r.bytes / reference.bytes!).toFixed(2)).padStart(6),
      ].join(' '),
    );
  }
  console.log(
    "(CPU and wall exclude the embedding; sys: the kernel's part of the CPU, mostly the WAL's and the checkpoint's writes; +close µs: write and close a memory, the close's index saves (ours) or last checkpoint (the reference's) counted; goals: rememberMany ≥ 0.5× the reference's rate, in-memory ≥ SQLite, bytes ≤ 2× the reference)",
  );
}

/**
 * Raw copies of the built file's rows into new files, per layout; CPU time of the inserts and commits
 * (the commits' checkpoints included), and the file's bytes a memory. Each layout is a list of
 * statements run per batch with the batch's first and last memory rowid; `setup` changes the new
 * file's schema before the copy (outside the clock).
 */
async function floors(dir: string, source: string, count: number): Promise<void> {
  const { openDatabase } = await import('@agentmem/sqlite');
  const columns =
    'rowid, id, namespace, tenant, text, attributes, payload, attr_kind, attr_status, attr_type, attr_content_hash, attr_memory_id, context, attr_occurred_at';
  const range = 'FROM src.records WHERE rowid BETWEEN ? AND ?';
  const memoryRows = `INSERT INTO records (${columns}) SELECT ${columns} ${range}`;
  // The payload without what the row's columns hold again (text, id, scope, content hash), the
  // attributes without the keys that have columns: what a reader could put back from the columns.
  const slimPayload = "json_remove(payload, '$.content', '$.id', '$.namespace', '$.tenant', '$.contentHash')";
  const slimAttributes =
    "jsonb_remove(attributes, '$.kind', '$.status', '$.type', '$.contentHash', '$.occurredAt', '$.memoryId')";
  const slimRows = (attributes: string, hash: string) =>
    `INSERT INTO records (${columns}) SELECT rowid, id, namespace, tenant, text, ${attributes}, ${slimPayload}, ` +
    `attr_kind, attr_status, attr_type, ${hash}, attr_memory_id, context, attr_occurred_at ${range}`;
  const codes = 'INSERT INTO vector_codes SELECT * FROM src.vector_codes WHERE rowid BETWEEN ? AND ?';
  // Eight vectors a row (their codes and floats concatenated, built before the clock): 1.6 KB rows
  // fill a 4 KiB page two at a time, leaving ~870 bytes of each page empty.
  const packedCodes =
    'INSERT INTO packed_codes SELECT * FROM temp.packed WHERE chunk BETWEEN (? - 1) / 8 AND (? - 1) / 8';
  const packedSetup = [
    'DROP TABLE vector_codes',
    'CREATE TABLE packed_codes (chunk INTEGER PRIMARY KEY, tenant TEXT NOT NULL, namespace TEXT NOT NULL, codes BLOB NOT NULL, embeddings BLOB NOT NULL)',
    'CREATE INDEX packed_codes_scope ON packed_codes (tenant, namespace)',
    `CREATE TEMP TABLE packed AS SELECT (rowid - 1) / 8 AS chunk, min(tenant) AS tenant, min(namespace) AS namespace,
       unhex(group_concat(hex(code), '')) AS codes, unhex(group_concat(hex(embedding), '')) AS embeddings
       FROM (SELECT * FROM src.vector_codes ORDER BY rowid) GROUP BY (rowid - 1) / 8`,
  ];
  const shortHash =
    'DROP INDEX records_content_hash; CREATE INDEX records_content_hash ON records (attr_content_hash) WHERE attr_content_hash IS NOT NULL';
  const layouts: [string, string[], string[]][] = [
    ['as stored now: memory row + codes and floats', [memoryRows, codes], []],
    ['memory rows only', [memoryRows], []],
    ['codes and floats only', [codes], []],
    ['slim payload (no text, id, scope, hash again) + codes', [slimRows('attributes', 'attr_content_hash'), codes], []],
    [
      'slim payload and attributes, 16-character hash key + codes',
      [slimRows(slimAttributes, 'substr(attr_content_hash, 1, 16)'), codes],
      [shortHash],
    ],
    ['memory row + codes and floats 8 a row', [memoryRows, packedCodes], packedSetup],
    [
      'all three: slim rows, short hash key, 8 vectors a row',
      [slimRows(slimAttributes, 'substr(attr_content_hash, 1, 16)'), packedCodes],
      [shortHash, ...packedSetup],
    ],
  ];
  const src = openDatabase(source, { readonly: true });
  const memoryRowids = src
    .prepare("SELECT rowid FROM records WHERE attr_kind = 'memory' ORDER BY rowid")
    .pluck()
    .all() as number[];
  src.close();
  console.log(
    `\nwrite floors: the ${count} memories' rows copied with raw SQL into new files, ${BATCH} memories a transaction (CPU, in this process after the rows above: warmer than their first ingest)`,
  );
  for (const [label, statements, setup] of layouts) {
    const path = join(dir, 'floor.db');
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
    // An empty file with the store's schema, then a raw connection as the backend opens one.
    const empty = new SqliteBackend({ path });
    await empty.init({ dimension: 384 });
    await empty.close();
    const db = openDatabase(path);
    db.prepare('ATTACH DATABASE ? AS src').run(source);
    for (const sql of setup) db.exec(sql);
    db.pragma('wal_checkpoint(TRUNCATE)');
    const prepared = statements.map((sql) => db.prepare(sql));
    const start = process.cpuUsage();
    for (let i = 0; i < memoryRowids.length; i += BATCH) {
      const first = memoryRowids[i]!;
      const last = memoryRowids[Math.min(memoryRowids.length, i + BATCH) - 1]!;
      db.exec('BEGIN IMMEDIATE');
      for (const statement of prepared) statement.run(first, last);
      db.exec('COMMIT');
    }
    const used = cpuMs(start);
    db.exec('DETACH DATABASE src');
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
    const bytes = statSync(path).size / count;
    console.log(
      `${label.padEnd(62)} ${used.toFixed(0).padStart(6)} ms  ${((used * 1000) / count).toFixed(1).padStart(5)} µs a memory  ${Math.round(bytes).toLocaleString('en').padStart(6)} bytes a memory`,
    );
  }
}
