import { existsSync, statSync } from 'node:fs';
import {
  AgentMemoryError,
  abortedError,
  type OptimizeOptions,
  type OptimizeProgress,
  type OptimizeReport,
} from '@agentmem/core';
import type Database from 'better-sqlite3';
import type { SqliteKeywordIndex } from '../keyword';
import { CODES_TABLE } from '../schema';
import type { SqliteDenseIndex } from '../vector';
import { extendSparseSave, partialHeader } from '../vector/sparse-build';
import { SparseIndex } from '../vector/sparse-index';

/** What `optimize` needs of an open, writable SqliteBackend. */
export interface OptimizeTarget {
  readonly db: Database.Database;
  /** Absolute path of the file, or `':memory:'`. */
  readonly path: string;
  readonly keywords: SqliteKeywordIndex;
  /** The binary (or sparse) index of the connection, once the file has vectors. */
  denseIndex(): SqliteDenseIndex | undefined;
  /** The file's vector dimension, once it has vectors. */
  dimension(): number | undefined;
  /** Resolves once no transaction of another caller of this backend is open: each step runs then. */
  idle(): Promise<void>;
}

/** How the file's dense index stands: its save (none, a sparse build not finished, a sparse or binary index), changes logged since. */
interface DenseState {
  saved: 'none' | 'partial' | 'sparse' | 'dense';
  logged: boolean;
  vectors: boolean;
}

/**
 * The maintenance step (`SqliteBackend.optimize`, `agentmem optimize`): leaves the file as a new
 * process's first recall wants it. Each step is one bounded transaction of the indexes' own save
 * code, so a kill mid-way leaves a file that opens and keeps every step done:
 * 1. the dense index: saved when the file has none (loaded as a search would: a sparse index's
 *    first slice, or the binary index read from the codes table), a sparse build not finished
 *    carried on slice by slice (65,536 rowids each, extendSparseSave) to the end, and saved again
 *    when changes are logged since its save;
 * 2. the keyword index: loaded (caught up, or rebuilt) and saved when changes are logged since its
 *    save or the file has none;
 * 3. `vacuum`: VACUUM; then `wal_checkpoint(TRUNCATE)` (no `PRAGMA optimize`: see below).
 * A save is skipped when another process holds the write lock: the step is tried again until the
 * connection's busy timeout, then TIMEOUT (the steps done are kept). The signal is checked between steps;
 * `onProgress` hears of each step as it starts and of each slice once built.
 */
export async function optimizeStore(target: OptimizeTarget, options: OptimizeOptions = {}): Promise<OptimizeReport> {
  const started = performance.now();
  const { db, path } = target;
  const signal = options.abortSignal;
  const report: OptimizeReport = {
    provider: 'sqlite',
    slicesBuilt: 0,
    indexesSaved: [],
    indexesCurrent: [],
    walCheckpointed: false,
    vacuumed: false,
    bytesBefore: fileBytes(path),
    bytesAfter: 0,
    ms: 0,
  };
  // Between steps: timers and other callers get their turn, and a cancelled call ends here.
  const step = async () => {
    await new Promise((resolve) => setImmediate(resolve));
    if (signal?.aborted) throw abortedError('optimize', signal);
    await target.idle();
  };
  let vectorsTotal: number | undefined;
  const progress = (stepName: OptimizeProgress['step'], built?: number) => {
    if (!options.onProgress) return;
    const event: OptimizeProgress = {
      step: stepName,
      slicesBuilt: report.slicesBuilt,
      ms: performance.now() - started,
    };
    if (built !== undefined) {
      // Counted once: the goal a slice count is read against (another process's writes may move it a little).
      vectorsTotal ??= db.prepare(`SELECT count(*) FROM ${CODES_TABLE}`).pluck().get() as number;
      event.vectorsBuilt = Math.min(built, vectorsTotal);
      event.vectorsTotal = vectorsTotal;
    }
    options.onProgress(event);
  };
  await step();
  if (path === ':memory:') {
    // Nothing outlives the connection: no save, no log to checkpoint.
    report.ms = performance.now() - started;
    return report;
  }
  const waitLimit = Math.max(db.pragma('busy_timeout', { simple: true }) as number, 0);
  /** Runs `work` until `done()`, a step each time; another process's write lock makes a save skip. */
  const until = async (what: string, work: () => void, done: () => boolean) => {
    const since = performance.now();
    for (;;) {
      await step();
      work();
      if (done()) return;
      if (performance.now() - since > waitLimit) {
        throw new AgentMemoryError(
          'TIMEOUT',
          `optimize could not ${what} of ${path}: another process held its write lock for longer than the busy timeout (${waitLimit} ms). The steps done so far are kept: run it again when the writer is done, or raise busyTimeoutMs.`,
          { details: { path } },
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };

  const dimension = target.dimension();
  const dense = dimension === undefined ? undefined : target.denseIndex();
  if (dense && dimension !== undefined && hasTables(db, ['dense_snapshot', 'dense_parts', 'dense_changes'])) {
    let state = denseState(db, dimension);
    let worked = false;
    if (state.saved === 'none' && state.vectors) {
      progress('dense-save');
      await until(
        'save the dense index',
        () => dense.saveNow(),
        () => denseState(db, dimension).saved !== 'none',
      );
      state = denseState(db, dimension);
      if (state.saved !== 'dense') {
        report.slicesBuilt++; // a sparse index's first slice
        progress('slice', vectorsBuilt(db));
      }
      worked = true;
    }
    while (state.saved === 'partial') {
      let appended = false;
      await until(
        'build a slice of the sparse index',
        () => {
          appended = extendSparseSave(db, dimension);
        },
        // Or another process carried the build on meanwhile (a search's slice, a writer's close).
        () => appended || denseState(db, dimension).saved !== 'partial',
      );
      if (appended) {
        report.slicesBuilt++;
        progress('slice', vectorsBuilt(db));
      }
      dense.forget(); // this connection's loaded index is of the shorter save
      state = denseState(db, dimension);
      worked = true;
    }
    // No vector left (every memory deleted): the dense index's save clears the log and any old save instead.
    if (state.logged) {
      progress('dense-save');
      await until(
        'save the dense index',
        () => dense.saveNow(),
        () => !denseState(db, dimension).logged,
      );
      state = denseState(db, dimension);
      worked = true;
    }
    if (state.saved !== 'none') (worked ? report.indexesSaved : report.indexesCurrent).push(state.saved);
  }

  const keywordPending = () =>
    Boolean(db.prepare('SELECT EXISTS (SELECT 1 FROM keyword_changes)').pluck().get()) ||
    (!db.prepare('SELECT 1 FROM keyword_snapshot WHERE id = 1').get() &&
      Boolean(db.prepare('SELECT EXISTS (SELECT 1 FROM records)').pluck().get()));
  if (keywordPending()) {
    progress('keyword-save');
    await until(
      'save the keyword index',
      () => target.keywords.saveNow(),
      () => !keywordPending(),
    );
    report.indexesSaved.push('keyword');
  } else if (db.prepare('SELECT 1 FROM keyword_snapshot WHERE id = 1').get()) {
    report.indexesCurrent.push('keyword');
  }

  if (options.vacuum) {
    await step();
    progress('vacuum');
    db.exec('VACUUM');
    report.vacuumed = true;
  }
  await step();
  progress('checkpoint');
  // No `PRAGMA optimize`: its one action is ANALYZE, which would replace the fixed planner statistics
  // of schema 2 (lookups by content hash or memory id keep their own index at any size) with those
  // of the file as it is (a 3,000-memory store got `records_occurred_at` = 2,001 rows a key).
  const [checkpoint] = db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
  report.walCheckpointed = checkpoint?.busy === 0;
  report.bytesAfter = fileBytes(path);
  report.ms = performance.now() - started;
  return report;
}

/** A save of another dimension counts as none: a load reads the table and saves over it. */
function denseState(db: Database.Database, dimension: number): DenseState {
  const data = db.prepare('SELECT data FROM dense_snapshot WHERE id = 1').pluck().get() as Buffer | undefined;
  const partial = data && partialHeader(data);
  const saved = !data
    ? 'none'
    : partial
      ? partial.dimension === dimension
        ? 'partial'
        : 'none'
      : SparseIndex.isHeader(data)
        ? 'sparse'
        : 'dense';
  return {
    saved,
    logged: Boolean(db.prepare('SELECT EXISTS (SELECT 1 FROM dense_changes)').pluck().get()),
    vectors: Boolean(db.prepare(`SELECT EXISTS (SELECT 1 FROM ${CODES_TABLE})`).pluck().get()),
  };
}

/** Vectors in the sparse index saved so far: those of its chunks while its build is not finished, else all of them. */
function vectorsBuilt(db: Database.Database): number {
  const data = db.prepare('SELECT data FROM dense_snapshot WHERE id = 1').pluck().get() as Buffer | undefined;
  const partial = data && partialHeader(data);
  if (partial) return partial.chunks.reduce((sum, n) => sum + n, 0);
  return Number.POSITIVE_INFINITY; // finished: capped to the total by the caller
}

function hasTables(db: Database.Database, names: readonly string[]): boolean {
  const found = db
    .prepare("SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name IN (SELECT value FROM json_each(?))")
    .pluck()
    .get(JSON.stringify(names));
  return found === names.length;
}

/** The file and its write-ahead log, in bytes. */
function fileBytes(path: string): number {
  if (path === ':memory:') return 0;
  let bytes = 0;
  for (const file of [path, `${path}-wal`]) if (existsSync(file)) bytes += statSync(file).size;
  return bytes;
}
