import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { AgentMemoryError } from '@agentmem/core';
import Database from 'better-sqlite3';
import { APPLICATION_ID, MIGRATIONS, SCHEMA_VERSION, VECTOR_TABLE } from './migrations';
import { checkVectorExtension, useVectorExtension } from './vector-extension';

export interface OpenDatabaseOptions {
  readonly?: boolean;
  /**
   * With `readonly`: the file is finished, no process writes it while this connection is open (a
   * snapshot handed to a merge). A WAL-mode file without a `-wal` is then read in place, without locks
   * (SQLite's `immutable`), instead of being read whole into memory; see openImmutable.
   */
  finished?: boolean;
  /** How long a write waits for another process's write lock. Default 5000. */
  busyTimeoutMs?: number;
  /** Bytes of the file read through mmap (`PRAGMA mmap_size`). Default 16 MiB. */
  mmapBytes?: number;
}

const SQLITE_MAGIC = 'SQLite format 3\u0000';
/** The last schema step that rewrites records or vector_codes (set it when adding such a step). */
const LAST_STEP_REWRITING_ROWS = 8;

/** Page size of a new file (see openDatabase). */
const PAGE_BYTES = 8192;

/** Bytes of the file read through mmap (see openDatabase). */
const MMAP_BYTES = 16 * 2 ** 20;

export function isInMemoryPath(path: string): boolean {
  return path === ':memory:';
}

/** Reads the 100-byte SQLite header; undefined when the file is missing, empty or too short. */
function readHeader(path: string): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return undefined;
  }
  try {
    const header = Buffer.alloc(100);
    return readSync(fd, header, 0, 100, 0) === 100 ? header : undefined;
  } catch {
    return undefined; // a directory, or unreadable
  } finally {
    closeSync(fd);
  }
}

/**
 * True when `path` is an agentmem SQLite file (by its header's application id).
 * Cheap: reads 100 bytes, opens nothing.
 */
export function isAgentmemDatabase(path: string): boolean {
  const header = readHeader(path);
  return (
    header !== undefined &&
    header.toString('latin1', 0, 16) === SQLITE_MAGIC &&
    header.readUInt32BE(68) === APPLICATION_ID
  );
}

function notADatabase(path: string, why: string, cause?: unknown): AgentMemoryError {
  return new AgentMemoryError(
    'NOT_A_DATABASE',
    `${path} ${why}. Point @agentmem/sqlite at an agentmem database file, or at a path that does not exist yet to create one (e.g. ./.agentmem/memory.db).`,
    { cause, details: { path } },
  );
}

/** Checks the path before SQLite touches it, so a wrong file is refused unchanged. */
function checkPath(path: string, readonly: boolean): void {
  let stats: ReturnType<typeof statSync> | undefined;
  try {
    stats = statSync(path);
  } catch {
    stats = undefined;
  }
  if (stats?.isDirectory()) throw notADatabase(path, 'is a directory, not a database file');
  if (!stats) {
    if (readonly) {
      throw new AgentMemoryError(
        'NOT_FOUND',
        `No database at ${path} to open read-only. Check the path, or open it writable to create it.`,
        {
          details: { path },
        },
      );
    }
    ensureParentDirectory(path);
    return;
  }
  if (stats.size === 0) return;
  const header = readHeader(path);
  if (!header || header.toString('latin1', 0, 16) !== SQLITE_MAGIC)
    throw notADatabase(path, 'is not a SQLite database');
}

/**
 * Creates the directories above a file about to be written, or refuses with
 * the fix when a file stands where one of them should be (mkdir's EEXIST or
 * ENOTDIR). `failure` starts the message: `Cannot create <path>` by default.
 */
export function ensureParentDirectory(path: string, failure = `Cannot create ${path}`): void {
  try {
    mkdirSync(dirname(path), { recursive: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'EEXIST' || code === 'ENOTDIR'
        ? 'a file, not a directory, is in the way on its path'
        : (error as Error).message;
    throw new AgentMemoryError('INVALID_INPUT', `${failure}: ${why}. Choose a path whose parent is a directory.`, {
      cause: error,
      details: { path },
    });
  }
}

/**
 * True when `error` says better-sqlite3's native addon is absent or built for
 * another Node: pnpm 10 and `--ignore-scripts` skip its install script, so
 * `bindings` finds no `better_sqlite3.node`; a Node upgrade leaves one built
 * for another NODE_MODULE_VERSION.
 */
function isMissingNativeBuild(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as NodeJS.ErrnoException).code;
  return (
    /Could not locate the bindings file|better_sqlite3\.node|NODE_MODULE_VERSION/.test(error.message) ||
    code === 'ERR_DLOPEN_FAILED'
  );
}

/**
 * `new Database(...)`, where better-sqlite3 loads its native addon on first
 * use: a missing build becomes MISSING_DEPENDENCY naming the fix for each
 * package manager, as a missing sqlite-vec binary does.
 */
function connect(filename: string | Buffer, options?: Database.Options): Database.Database {
  // better-sqlite3 reads SQLITE_USE_URI once, when its addon loads (it is built without URI filenames):
  // set for that load only, so that openImmutable's `file:` URI opens. A name starting with `file:` is
  // then a URI for every connection of this process; this package opens absolute paths only. A process
  // that loaded the addon before, or set SQLITE_USE_URI itself, keeps its setting.
  const uri = !addonLoaded && process.env.SQLITE_USE_URI === undefined;
  if (uri) process.env.SQLITE_USE_URI = '1';
  try {
    const addon = nativeBinding();
    const db = new Database(filename, addon ? { ...options, nativeBinding: addon } : options);
    addonLoaded = true;
    return db;
  } catch (error) {
    if (!isMissingNativeBuild(error)) throw error;
    const first = (error as Error).message.split('\n')[0];
    throw new AgentMemoryError(
      'MISSING_DEPENDENCY',
      `better-sqlite3's native build is missing or was built for another Node.js (${first}). Its install script must run: npm rebuild better-sqlite3 (npm with allowScripts: allow better-sqlite3); with pnpm 10, add better-sqlite3 to pnpm.onlyBuiltDependencies (or run pnpm approve-builds) and then pnpm rebuild better-sqlite3; with --ignore-scripts, run npm rebuild better-sqlite3 afterwards.`,
      { cause: error },
    );
  } finally {
    if (uri) delete process.env.SQLITE_USE_URI;
  }
}

let addonLoaded = false;
let addonPath: string | null | undefined;
let driverDir: string | null | undefined;

/**
 * better-sqlite3's package folder as this file's `import` finds it, or undefined when it cannot be
 * resolved from here (a bundle). Found once per process.
 */
function betterSqlite3Dir(): string | undefined {
  if (driverDir === undefined) {
    driverDir = null;
    try {
      const here = typeof __filename === 'string' ? __filename : fileURLToPath(import.meta.url);
      driverDir =
        nearestPackage(dirname(here), 'better-sqlite3') ??
        dirname(createRequire(here).resolve('better-sqlite3/package.json'));
    } catch {
      // not resolvable from this file: better-sqlite3 finds its addon itself
    }
  }
  return driverDir ?? undefined;
}

/**
 * `node_modules/<name>` in `dir` or the nearest folder above it that holds one: the folders Node's
 * resolution tries, in its order, for a package imported from a file in `dir` (a `node_modules` folder
 * inside another is skipped, as Node skips it). A few `existsSync` calls: resolving
 * `better-sqlite3/package.json` through `require.resolve` cost 1.1-4.9 ms of a cold open under tsx,
 * whose resolver hook runs first (issue 30, cold-15). Undefined where no such folder exists (Yarn
 * PnP, a bundle moved elsewhere): then the caller resolves as before.
 */
export function nearestPackage(dir: string, name: string): string | undefined {
  for (let at = dir; ; ) {
    if (basename(at) !== 'node_modules') {
      const candidate = join(at, 'node_modules', name);
      if (existsSync(join(candidate, 'package.json'))) return candidate;
    }
    const up = dirname(at);
    if (up === at) return undefined;
    at = up;
  }
}

/**
 * better-sqlite3's addon where its build puts it, looked for in the order the `bindings` package tries
 * first. Without it, better-sqlite3 asks `bindings`, which reads a stack trace for its caller's folder
 * and `require`s paths until one loads (each miss a thrown error): 8.5M instructions of a cold open
 * against 3.9M (callgrind, an in-memory open). Undefined when none of those holds the build or the
 * package cannot be resolved from here (a bundle): then `bindings` searches as before, and its error
 * names the paths it tried.
 */
function nativeBinding(): string | undefined {
  if (addonPath === undefined) {
    addonPath = null;
    const root = betterSqlite3Dir();
    for (const dir of root ? ['build', 'build/Debug', 'build/Release'] : []) {
      const file = join(root!, dir, 'better_sqlite3.node');
      if (existsSync(file)) {
        addonPath = file;
        break;
      }
    }
  }
  return addonPath ?? undefined;
}

export interface SchemaInfo {
  applicationId: number;
  version: number;
  tables: string[];
}

export function readSchemaInfo(db: Database.Database): SchemaInfo {
  // One statement, so one read snapshot: read apart, another process's first migration could commit
  // between them, and an id from before it beside tables from after it reads as another application's file.
  const row = db
    .prepare(
      `SELECT (SELECT application_id FROM pragma_application_id) AS applicationId,
              (SELECT user_version FROM pragma_user_version) AS version,
              (SELECT json_group_array(name) FROM (
                 SELECT name FROM sqlite_schema
                 WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%' ORDER BY name)) AS tables`,
    )
    .get() as { applicationId: number; version: number; tables: string };
  return { applicationId: row.applicationId >>> 0, version: row.version, tables: JSON.parse(row.tables) as string[] };
}

/** Refuses files that are not ours or too new for this build; says whether migrations are needed. */
function checkSchema(path: string, info: SchemaInfo): void {
  const ours = info.applicationId === APPLICATION_ID;
  if (!ours && info.tables.length > 0) {
    const shown = info.tables.slice(0, 5).join(', ') + (info.tables.length > 5 ? ', …' : '');
    throw notADatabase(
      path,
      `is a SQLite database of another application (tables: ${shown}), not an agentmem database`,
    );
  }
  if (ours && info.version > SCHEMA_VERSION) {
    throw new AgentMemoryError(
      'UNSUPPORTED_FORMAT',
      `${path} has agentmem schema version ${info.version}, newer than this @agentmem/sqlite supports (${SCHEMA_VERSION}). Upgrade @agentmem/sqlite to open it; the file was left unchanged.`,
      { details: { path, version: info.version, supported: SCHEMA_VERSION } },
    );
  }
}

/**
 * The largest file a read-only open copies into memory: SQLite makes its copy of the image in one
 * allocation, and refuses any past SQLITE_MAX_ALLOCATION_SIZE ("Out of memory"); `readFileSync` too
 * refuses a file past 2 GiB. A 1M-memory store is ~4 GB: before this bound, its read-only open failed.
 */
export const MAX_IMAGE_BYTES = 2_147_483_391;

/** True when the file's header says WAL mode (file format write and read versions 2). */
function isWalFile(path: string): boolean {
  const header = readHeader(path);
  return header?.[18] === 2 && header[19] === 2;
}

/**
 * The bytes of a WAL-mode file that no process is writing (no `-wal` beside
 * it: the main file holds every commit), marked as a rollback-journal file.
 * SQLite reads a WAL-mode file only through `-wal` and `-shm` files it
 * creates, which a read-only directory refuses and a writable one keeps
 * afterwards; an in-memory image of the file needs neither, so a read-only
 * open leaves no file behind and changes no byte. Undefined when a writer is
 * present (or appears while reading): its `-wal`/`-shm` are read as usual;
 * and past MAX_IMAGE_BYTES, where the file is read in place, as with a writer.
 * For a file whose header says WAL mode (isWalFile).
 */
function quiescentWalImage(path: string): Buffer | undefined {
  const wal = `${path}-wal`;
  if (existsSync(wal)) return undefined;
  const before = statSync(path);
  if (before.size > MAX_IMAGE_BYTES) return undefined;
  const image = readFileSync(path);
  const after = statSync(path);
  // A writer that opened meanwhile may have checkpointed into the file while it was read.
  if (existsSync(wal) || after.mtimeMs !== before.mtimeMs || after.size !== before.size) return undefined;
  image[18] = 1; // file format write/read version: 1 = rollback journal, 2 = WAL
  image[19] = 1;
  return image;
}

/**
 * A finished WAL-mode file read in place: `immutable=1` tells SQLite the file cannot change, so it takes
 * no lock and needs no -wal/-shm (SQLite's wal.html, "Read-Only Databases"). Without it a WAL-mode file
 * is read only through those files, which a read-only directory refuses and a writable one keeps; so
 * read-only opens read the whole file into memory instead (quiescentWalImage: 431 MB at 100k memories,
 * read and copied at every merge). Only for callers that know nobody writes the file meanwhile: with no
 * locks, a process checkpointing into it during the reads would show pages of two states. For a file
 * whose header says WAL mode (isWalFile: rollback files are read in place with locks anyway).
 * Undefined (the caller takes quiescentWalImage) when a -wal or -journal is beside it (a writer, or
 * an interrupted write: its changes are read only through SQLite's recovery), or this process's
 * SQLite takes no URI filenames.
 */
function openImmutable(path: string, options: Database.Options): Database.Database | undefined {
  if (existsSync(`${path}-wal`) || existsSync(`${path}-journal`)) return undefined;
  let db: Database.Database;
  try {
    db = connect(`${pathToFileURL(path).href}?immutable=1`, { ...options, readonly: true, fileMustExist: true });
  } catch (error) {
    if (isSqliteError(error, 'SQLITE_CANTOPEN')) return undefined; // no URI: a relative name that does not exist
    throw error;
  }
  // Without URI filenames, the open found a file of that literal name: not ours to read.
  const main = (db.pragma('database_list') as { name: string; file: string }[]).find((d) => d.name === 'main');
  if (!main || main.file.endsWith('?immutable=1')) {
    db.close();
    return undefined;
  }
  return db;
}

/** Applies pending migrations in one immediate transaction (another process may be doing the same). */
export function migrate(db: Database.Database, path: string): number {
  db.prepare('BEGIN IMMEDIATE').run();
  try {
    const info = readSchemaInfo(db);
    checkSchema(path, info); // again, under the write lock
    // A file before schema 13 holds sqlite-vec's vec0 table: its steps read it and drop it.
    if (info.tables.includes(VECTOR_TABLE)) useVectorExtension(db);
    for (const m of MIGRATIONS) {
      if (m.version <= info.version) continue;
      db.exec(m.sql);
      m.apply?.(db);
    }
    // A step that rewrites records or vectors makes the saved indexes stale: they are then rebuilt from
    // them. Steps 9-11 only add tables, so a file they upgrade keeps its saved keyword index (deleting
    // it made the first recall after an upgrade rebuild it: ~3 s at 100k memories).
    if (info.version >= 9 && info.version < LAST_STEP_REWRITING_ROWS) db.exec('DELETE FROM keyword_snapshot');
    if (info.version >= 11 && info.version < LAST_STEP_REWRITING_ROWS) db.exec('DELETE FROM dense_snapshot');
    if (info.version < SCHEMA_VERSION || info.applicationId !== APPLICATION_ID) {
      db.pragma(`application_id = ${APPLICATION_ID | 0}`);
      db.pragma(`user_version = ${SCHEMA_VERSION}`);
    }
    db.prepare('COMMIT').run();
    return info.version;
  } catch (error) {
    if (db.inTransaction) db.prepare('ROLLBACK').run();
    throw error;
  }
}

/**
 * Takes the write lock at once (`BEGIN IMMEDIATE` with no busy wait) for work that may be skipped and
 * done later (an index save, a slice of a build): false when another process holds it. The caller
 * commits or rolls back.
 */
export function beginImmediateNow(db: Database.Database): boolean {
  const timeout = db.pragma('busy_timeout', { simple: true }) as number;
  db.pragma('busy_timeout = 0');
  try {
    db.prepare('BEGIN IMMEDIATE').run();
    return true;
  } catch (error) {
    if (isSqliteError(error, 'SQLITE_BUSY', 'SQLITE_LOCKED')) return false;
    throw error;
  } finally {
    db.pragma(`busy_timeout = ${timeout}`);
  }
}

export function isSqliteError(error: unknown, ...codes: string[]): error is Error & { code: string } {
  return error instanceof Database.SqliteError && codes.some((c) => error.code === c || error.code.startsWith(`${c}_`));
}

/**
 * Opens (or creates) an agentmem database: refuses directories, non-SQLite
 * files, other applications' databases and newer schema versions before
 * writing anything; then switches to WAL and applies migrations.
 */
/**
 * Page cache per connection, KiB (SQLite's default is 2,000; 64 MB before multi-row inserts, same ingest
 * CPU at 32). 16 since issue 30 (rss-4): at 32 a 100k bulk write ended with ~64 MB of cache in malloc,
 * which glibc kept after SQLite gave it back, and the recall bench's RSS was 442-447 MB against 405-418
 * at 16, with the same ingest and recall CPU (docs/benchmarks.md, rss-4).
 */
export const CACHE_KIB = 16_384;

/**
 * Page cache, KiB, while a `transaction()` is open (SqliteBackend raises it at the transaction's start and
 * gives CACHE_KIB back at its end): a bulk write's batch of 5,000 memories dirties ~20 MB of pages, and
 * at 16 MiB its B-tree pages were written to the WAL mid-transaction, changed again and re-read from it.
 * A 100k ingest into a reopened store wrote 90.7k WAL frames and read 115k back at 16 MiB, 68.6k and
 * 72k at 32 (strace; a new file's connection had ~32 MB by the order below before issue 30's
 * ingest-commit: docs/benchmarks.md).
 */
export const WRITE_CACHE_KIB = 32_768;

export function openDatabase(path: string, options: OpenDatabaseOptions = {}): Database.Database {
  const readonly = options.readonly ?? false;
  const memory = isInMemoryPath(path);
  const shown = memory ? ':memory:' : resolve(path);
  // Before anything is created; sqlite-vec itself loads at its first use (vector-extension.ts). Its
  // platform package is looked for beside better-sqlite3 first (npm's flat node_modules).
  const driver = betterSqlite3Dir();
  checkVectorExtension(driver && dirname(driver));
  // A file about to be created: better-sqlite3's addon is loaded first (once per process), so that a
  // missing build fails before the parent directory is made. Opening one that exists creates nothing.
  if (!memory && !addonLoaded && !existsSync(shown)) connect(':memory:').close();
  if (!memory) checkPath(shown, readonly);
  // A refused read-only open must leave no -wal/-shm behind: remember which existed before.
  const sidecars = memory ? [] : [`${shown}-wal`, `${shown}-shm`].filter((f) => !existsSync(f));
  let db: Database.Database;
  let image: Buffer | undefined;
  try {
    const connection = { readonly, fileMustExist: readonly, timeout: options.busyTimeoutMs ?? 5000 };
    // A read-only WAL-mode file: read in place without locks when finished, else from an image (one header read).
    const wal = readonly && !memory && isWalFile(shown);
    const immutable = wal && options.finished ? openImmutable(shown, connection) : undefined;
    image = wal && !immutable ? quiescentWalImage(shown) : undefined;
    db = immutable ?? connect(image ?? (memory ? ':memory:' : shown), connection);
  } catch (error) {
    if (AgentMemoryError.isInstance(error)) throw error;
    throw notADatabase(shown, `could not be opened (${(error as Error).message})`, error);
  }
  try {
    let info: SchemaInfo;
    try {
      info = readSchemaInfo(db);
    } catch (error) {
      if (isSqliteError(error, 'SQLITE_NOTADB', 'SQLITE_CORRUPT'))
        throw notADatabase(shown, `is not a readable SQLite database (${(error as Error).message})`, error);
      throw error;
    }
    checkSchema(shown, info);
    // Memory-mapped reads: mmap spares copying pages through the page cache. Every mapped page a
    // process touched counts in its RSS: at 100k memories (a ~600 MB file) 256 MB put the recall bench
    // at 485-543 MB RSS, 64 MB at 331-354 MB with the same hybrid recall CPU (the binary and keyword
    // indexes are in process). 16 MiB since issue 30 (rss-5): at 100k (a ~370 MB file) a recall reads a
    // few hundred rows spread over the file, which touched the whole 64 MiB map (116 MB of file-backed
    // RSS, 69 at 16 MiB) for the ~20% of its pages that lay under it; recall CPU per query the same
    // (in-process paired rounds: 64 MiB median 3.81 ms, 16 MiB 3.71). An exact scan of every vector
    // (denseSearch 'exact') reads the whole table and costs more with a smaller map: raise mmapBytes for that.
    if (!memory) db.pragma(`mmap_size = ${options.mmapBytes ?? MMAP_BYTES}`);
    // A write inside a transaction is a savepoint (all but transaction()'s first since issue 30's
    // ingest-sql: see SqliteBackend's write), and a savepoint copies every page it first changes to a
    // sub-journal. Kept in memory (temp_store = MEMORY) that sub-journal made each insert at a
    // random place of an index cost ~1 ms once a batch had touched a few thousand pages (measured: 944
    // us per row against 147 us with FILE, where SQLite holds the first 64 KiB in memory and spills the
    // rest to a temporary file); rememberMany of 20k memories went from 1.6k to 2.3k per second.
    db.pragma('temp_store = FILE');
    // A page cache that holds a write batch: at the 2 MB default, the vector blobs of a batch pushed
    // the records' B-tree pages out mid-transaction and every insert re-read them (5x the CPU per row).
    // Bulk writes run in transaction(), which raises it to WRITE_CACHE_KIB while it is open.
    db.pragma(`cache_size = -${CACHE_KIB}`);
    if (readonly) {
      if (info.version < SCHEMA_VERSION) {
        throw new AgentMemoryError(
          'UNSUPPORTED_FORMAT',
          `${shown} has agentmem schema version ${info.version}; this build needs ${SCHEMA_VERSION}. Open it once without readonly to migrate it.`,
          { details: { path: shown, version: info.version, supported: SCHEMA_VERSION } },
        );
      }
      return db;
    }
    // New files get 8 KiB pages (before WAL mode and the first table: a file keeps its page size). A
    // 1.6 KB vector row of 384 dimensions filled a 4 KiB page two at a time (~870 bytes of each left
    // empty); 8 KiB pages hold five: 4,174 -> 3,591 bytes a memory at 20k, under issue 30's 2x of the
    // hand-built sqlite-vec store, with the same ingest, recall and RSS (measured again: docs/benchmarks.md,
    // disk-1). An older file keeps its pages: a plain VACUUM (optimize --vacuum too) keeps them in WAL
    // mode; docs/sqlite.md, "Page size", gives the steps that convert one.
    if (!memory && info.tables.length === 0 && info.version === 0) {
      db.pragma(`page_size = ${PAGE_BYTES}`);
      // SQLite turns KiB into pages with the page size of the moment and keeps that count when
      // page_size changes: set again, or the connection that creates a file caches 2x CACHE_KIB
      // (4 KiB pages counted; issue 30, rss-5), which its bulk writes had instead of WRITE_CACHE_KIB.
      db.pragma(`cache_size = -${CACHE_KIB}`);
    }
    if (!memory) db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    // A file at this build's schema needs no step (versions only grow, and a newer one was refused above):
    // no write transaction, which also waited for another process's write to end before the open returned.
    if (info.version === SCHEMA_VERSION && info.applicationId === APPLICATION_ID) return db;
    const from = migrate(db, shown);
    // Put the new header (application id) into the main file now, so isAgentmemDatabase sees it at once.
    if (from < SCHEMA_VERSION && !memory) db.pragma('wal_checkpoint(PASSIVE)');
    return db;
  } catch (error) {
    db.close();
    if (readonly) for (const f of sidecars) rmSync(f, { force: true });
    if (isSqliteError(error, 'SQLITE_BUSY', 'SQLITE_LOCKED')) {
      throw new AgentMemoryError(
        'TIMEOUT',
        `${shown} stayed locked by another process for longer than the busy timeout while opening. Retry, or raise busyTimeoutMs.`,
        { cause: error, details: { path: shown } },
      );
    }
    const inPlace = readonly && !image && (statSync(shown, { throwIfNoEntry: false })?.size ?? 0) > MAX_IMAGE_BYTES;
    if (inPlace && isSqliteError(error, 'SQLITE_READONLY', 'SQLITE_CANTOPEN')) {
      throw new AgentMemoryError(
        'BACKEND_UNAVAILABLE',
        `Cannot open ${shown} read-only: past ${MAX_IMAGE_BYTES} bytes it is read in place, and SQLite reads it through -wal and -shm files it creates beside it, which its directory refuses (${(error as Error).message}). Let this user write the directory, or open it while a process that writes it has it open (its -wal/-shm are then read).`,
        { cause: error, details: { path: shown } },
      );
    }
    if (isSqliteError(error, 'SQLITE')) {
      throw new AgentMemoryError(
        'BACKEND_UNAVAILABLE',
        `Cannot open ${shown}: ${(error as Error).message}. Check that the file and its directory are readable and writable (a read-only open still needs its -shm file).`,
        { cause: error, details: { path: shown } },
      );
    }
    throw error;
  }
}
